// Package gcfloor keeps the Go collector from running while the heap is
// small: below a floor, the heap goal is the floor instead of twice the
// live heap.
//
// Why: a scan holds little (a few batches, page buffers) but allocates
// fast (every batch's string bytes), so at GOGC=100 with a 20 MB live
// heap the collector ran every 20 MB allocated, several times a query.
// Each cycle took a quarter of the CPUs, emptied the sync.Pools the
// readers recycle page buffers through and handed freed spans back,
// which the next batches faulted in again: the 5-column lakebench scan
// ran 25-30 % slower than with the collector held off (GOGC=400).
// Raising GOGC for the whole process would instead let a large live heap
// grow five-fold; a floor costs at most its own size.
//
// How: after every collection (a finalizer re-armed each cycle) the GC
// percent is set so that the next goal is max(live × (1 + base/100),
// floor), base being the percent the process otherwise runs at. Code that
// changes the percent (the FE's pacing of large statements) goes through
// SetGCPercent, which changes the base and reapplies the floor, never
// debug.SetGCPercent directly. The process memory limit
// (debug.SetMemoryLimit) still bounds the heap: a floor above it never
// holds.
//
// What must stay true: without Start nothing changes (tests and library
// users run at their own GOGC); GOGC=off stays off; the floor is never
// more than a quarter of the process memory limit (FloorFor).
package gcfloor
