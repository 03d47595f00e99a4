package streamload

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Parallel decoding. A plain CSV body (no enclose, a line delimiter that
// cannot overlap itself, every column parsed straight into its builder, no
// where) is cut into chunks at row boundaries by one goroutine; workers
// decode chunks into batches on every core; one merger hands the batches to
// the Loader in body order, adds up the counters and numbers rejected rows
// from the body's start, so the load's answer, error log and table contents
// are those of the serial path. Memory stays bounded by the chunks in
// flight (a few per worker), never by the body.

const chunkBytes = 2 << 20

// parallelWorkers is how many decoders a load may run: 0 when the body must
// be decoded serially.
func parallelWorkers(pl *plan, p *Params) int {
	if p.Format != CSV || p.Enclose != 0 || pl.where != nil || selfOverlaps(p.LineDelimiter) {
		return 0
	}
	for _, o := range pl.out {
		if o.fast == nil {
			return 0
		}
	}
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return n
}

// selfOverlaps reports whether a proper prefix of d is also its suffix: then
// the last delimiter in a window may not be where a row ends.
func selfOverlaps(d []byte) bool {
	for k := 1; k < len(d); k++ {
		if bytes.Equal(d[:k], d[len(d)-k:]) {
			return true
		}
	}
	return false
}

// rejected is a row a worker filtered, numbered within its chunk.
type rejected struct {
	row    int64
	reason string
	raw    []byte
}

// chunkResult is what a worker made of one chunk.
type chunkResult struct {
	batches []arrow.RecordBatch
	n       counts
	rejects []rejected
	extra   int64 // rejects past maxLogRows, only counted
	err     error
}

type chunkJob struct {
	data []byte
	done chan chunkResult // buffered: a worker never waits on the merger
}

// produceParallel is produce for a body split among workers.
func (r *loadReader) produceParallel(workers int) {
	defer close(r.stopped)
	defer close(r.ch)
	abort := make(chan struct{})
	jobs := make(chan *chunkJob, workers)
	order := make(chan *chunkJob, 2*workers)
	free := make(chan []byte, 3*workers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.split(jobs, order, free, abort)
	}()
	for w := 0; w < workers; w++ {
		sub := newLoadReader(r.ctx, r.mem, r.env, nil, r.pl, &Params{Format: CSV, MaxFilterRatio: r.ratio}, nil)
		sub.chunk = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Release()
			for j := range jobs {
				j.done <- sub.decodeChunk(r.csvParams, j.data)
				select {
				case free <- j.data[:0]:
				default:
				}
			}
		}()
	}
	r.merge(order)
	close(abort)
	wg.Wait()
	for j := range order {
		res := <-j.done
		for _, b := range res.batches {
			b.Release()
		}
	}
}

// merge takes the chunks' results in body order until the body ends, an
// error, or the consumer quits.
func (r *loadReader) merge(order <-chan *chunkJob) {
	for j := range order {
		res := <-j.done
		if res.err == nil {
			if err := r.ctx.Err(); err != nil {
				res.err = fmt.Errorf("load cancelled: %w", err)
			}
		}
		if res.err != nil {
			r.err = res.err
			for _, b := range res.batches {
				b.Release()
			}
			return
		}
		base := r.n.total
		if r.log != nil {
			for _, x := range res.rejects {
				r.log.add(base+x.row, x.reason, x.raw)
			}
			r.log.dropped += res.extra
		}
		r.n.total += res.n.total
		r.n.loaded += res.n.loaded
		r.n.filtered += res.n.filtered
		r.n.unselected += res.n.unselected
		for i, b := range res.batches {
			select {
			case r.ch <- b:
			case <-r.quit:
				for _, rest := range res.batches[i:] {
					rest.Release()
				}
				return
			}
		}
	}
	r.done = true
	r.eofAt = time.Now()
	if r.n.filtered > 0 && float64(r.n.filtered) > r.ratio*float64(r.n.filtered+r.n.loaded) {
		r.err = fmt.Errorf("%w: %d of %d rows filtered, over max_filter_ratio %g", ErrFiltered, r.n.filtered, r.n.total, r.ratio)
	}
}

// split cuts the body into chunks that end at a line delimiter (the last
// one may not). Its window is the serial reader's, so a row too long
// fails at the same byte with the same error.
func (r *loadReader) split(jobs, order chan<- *chunkJob, free chan []byte, abort <-chan struct{}) {
	defer close(order)
	defer close(jobs)
	b := r.body
	delim := r.csvParams.LineDelimiter
	send := func(data []byte) bool {
		j := &chunkJob{data: data, done: make(chan chunkResult, 1)}
		select {
		case order <- j:
		case <-abort:
			return false
		}
		select {
		case jobs <- j:
			return true
		case <-abort:
			j.done <- chunkResult{}
			return false
		}
	}
	fail := func(err error) {
		j := &chunkJob{done: make(chan chunkResult, 1)}
		j.done <- chunkResult{err: err}
		select {
		case order <- j:
		case <-abort:
		}
	}
	target := min(chunkBytes, len(b.buf))
	for {
		// Fill the window to a chunk's worth before cutting.
		for !b.eof && b.end-b.start < target {
			if _, err := b.refill(); err != nil {
				fail(err)
				return
			}
		}
		win := b.buf[b.start:b.end]
		if len(win) == 0 && b.eof {
			return
		}
		cut := len(win)
		if !b.eof || b.end-b.start > target {
			i := bytes.LastIndex(win, delim)
			if i < 0 {
				// One unfinished row fills the window: grow it (or fail) as
				// the serial reader does.
				if b.eof {
					cut = len(win)
				} else {
					if _, err := b.refill(); err != nil {
						fail(err)
						return
					}
					continue
				}
			} else {
				cut = i + len(delim)
			}
		}
		var data []byte
		select {
		case data = <-free:
		default:
		}
		data = append(data, win[:cut]...)
		b.start += cut
		if !send(data) {
			return
		}
	}
}

// decodeChunk decodes one chunk into batches, as a worker (r is the
// worker's own reader: builders and counters of its own).
func (r *loadReader) decodeChunk(p *Params, data []byte) chunkResult {
	r.dec = &csvReader{b: &buffer{buf: data, end: len(data), eof: true, max: len(data)}, sep: p.ColumnSeparator, delim: p.LineDelimiter,
		trimQuotes: p.TrimDoubleQuote}
	r.n = counts{}
	r.rejects, r.extra = nil, 0
	var res chunkResult
	for {
		n, err := r.fill()
		if err != nil {
			res.err = err
			break
		}
		if n == 0 {
			break
		}
		out, err := r.convert(n)
		if err != nil {
			res.err = err
			break
		}
		if out != nil {
			res.batches = append(res.batches, out)
		}
	}
	res.n, res.rejects, res.extra = r.n, r.rejects, r.extra
	r.dec = nil
	return res
}
