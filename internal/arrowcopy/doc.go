// Package arrowcopy copies Arrow columns out of buffers that do not
// outlive their batch (a mapped file's pages) into buffers from an
// allocator. It is the one place that decides which columns need it and
// how: the internal catalog detaches what its scans return, and exec
// detaches what a filter kept of a raw (mapped) batch.
package arrowcopy
