// Package sysmem tells how much memory this process may use: the
// machine's, or its cgroup's limit when that is lower. The FE's default
// --mem-limit (exec/memlimit) and the GC floor of a BE (internal/gcfloor,
// cmd/be) are fractions of it; it is a leaf so that a BE reads it without
// the executor.
package sysmem
