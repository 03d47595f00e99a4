// Package metrics is a small registry of counters and gauges written in the
// Prometheus text exposition format (version 0.0.4), so a process can serve
// /metrics without the Prometheus client library.
//
// What must stay true: a Registry is owned by one process component and
// passed in (no package-level registry); families are written in the order
// they were created and series sorted by label values, so the output is
// stable; label values are escaped as the format requires; every method is
// safe for concurrent use.
package metrics
