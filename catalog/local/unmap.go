package local

// unmapAsyncMin is the mapping size from which munmap runs off the
// releasing goroutine.
const unmapAsyncMin = 4 << 20

// unmapLater gives a large mapping's pages back on a goroutine of its
// own. munmap of a segment a scan read through costs milliseconds (tearing
// down the page tables of every page touched), paid by whichever goroutine
// released the last batch: the query's own, just before its answer. The
// mapping has no references left when unmap is called, so nothing reads
// the bytes in between; the pages stay allocated only until the goroutine
// runs.
func unmapLater(b []byte) error {
	if len(b) < unmapAsyncMin {
		return munmap(b)
	}
	go func() {
		// As in mapping.release: munmap of a range we mapped cannot fail
		// short of a bug, and nobody is left to tell.
		_ = munmap(b)
	}()
	return nil
}
