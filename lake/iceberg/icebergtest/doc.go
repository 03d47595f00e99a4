// Package icebergtest writes small Iceberg tables with iceberg-go (an
// implementation independent of lake/iceberg's reader) for tests: a Hadoop
// catalog warehouse on a local path, appends, merge-on-read position
// deletes and equality deletes. Test use only.
package icebergtest
