package parquetpage

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DictFilter is a row filter over one column that can be answered from
// the column's dictionary: a dictionary-encoded row passes when its
// dictionary value does, a NULL row when Null says so. The caller's
// filter must give every row the answer Eval gives its value, which is
// what makes evaluating it once per dictionary entry exact.
type DictFilter struct {
	// Eval writes into keep[i] whether dictionary value i passes. dict
	// has the column's output type and no NULLs (but see NoValues); it
	// and keep are valid only during the call.
	Eval func(dict arrow.Array, keep []bool)
	// Null is the answer for a NULL row.
	Null bool
	// NoValues says the caller reads no value of the column after the
	// filter (a column only the filter reads): ReadFilter then builds no
	// string of a dictionary-encoded row, passing or not, and answers the
	// rows of other pages itself (Eval on the values it read, NULL rows
	// answered by Null whatever Eval says of them), so the answer is
	// always exact. Ignored with matLive.
	NoValues bool
}

// filterState is ReadFilter's state during the call.
type filterState struct {
	f      *DictFilter
	pass   []bool // the answer, row by row of the read
	live   []bool // nil: every row
	matAll bool   // materialise every live row, not only the passing
	exact  bool   // every row so far came from a dictionary page
	// noValues (DictFilter.NoValues): dictionary rows materialise
	// nothing (none, all false, is their selection); undecided marks the
	// rows of other pages, answered at the end of the read.
	noValues  bool
	none      []bool
	undecided []bool
}

// ReadFilter reads the next n rows as ReadSelected(live) would and
// answers f on them into pass (len >= n): pass[i] is false for a row
// outside live and for a row f drops. Rows of dictionary-encoded pages
// are answered by f's answer for their dictionary index, computed once
// per dictionary page, and no string is built for a row that does not
// pass (for none at all when matLive is set only the live rows').
//
// exact is false when some rows came from pages of another encoding (a
// writer falling back to PLAIN mid-chunk) or the column is not a byte
// array: those rows get pass = live and their values are materialised,
// and the caller must evaluate its filter on them itself (on the rows
// with pass set, which all hold their values).
//
// With matLive, every live row's value is materialised (a caller whose
// filter is re-evaluated later on the batch needs them); otherwise only
// the passing rows' are, the others left empty as ReadSelected leaves
// unselected rows.
func (r *Reader) ReadFilter(ctx context.Context, n int, live []bool, f *DictFilter, pass []bool, matLive bool, mem memory.Allocator) (a arrow.Array, exact bool, err error) {
	if f == nil || f.Eval == nil {
		return nil, false, fmt.Errorf("parquetpage: ReadFilter without a filter")
	}
	if len(pass) < n || live != nil && len(live) < n {
		return nil, false, fmt.Errorf("parquetpage: filter of %d rows for a read of %d", min(len(pass), len(live)), n)
	}
	if r.p.cv != cvBinary {
		// Fixed-width dictionaries gather their values at about the cost
		// of an index lookup: nothing to gain.
		a, err := r.ReadSelectedWith(ctx, n, live, mem)
		if err != nil {
			return nil, false, err
		}
		fillLive(pass[:n], live)
		return a, false, nil
	}
	r.filt = &filterState{f: f, pass: pass[:n], live: live, matAll: matLive, exact: true, noValues: f.NoValues && !matLive}
	defer func() { r.filt = nil }()
	a, err = r.ReadSelectedWith(ctx, n, live, mem)
	if err != nil {
		return nil, false, err
	}
	if fs := r.filt; fs.noValues && !fs.exact {
		// The rows of other pages hold their values (every live one):
		// answer them here, as the caller cannot on the dictionary rows
		// left empty.
		keep := make([]bool, n)
		f.Eval(a, keep)
		for i, u := range fs.undecided {
			if u && fs.pass[i] {
				fs.pass[i] = a.IsNull(i) && f.Null || a.IsValid(i) && keep[i]
			}
		}
		fs.exact = true
	}
	return a, r.filt.exact, nil
}

// fillLive sets pass to live (every row when live is nil).
func fillLive(pass, live []bool) {
	if live == nil {
		for i := range pass {
			pass[i] = true
		}
		return
	}
	copy(pass, live[:len(pass)])
}

// dictKeep is the filter's answer per entry of the current dictionary,
// evaluated on the first page of the dictionary that needs it.
func (r *Reader) dictKeep(f *DictFilter) []bool {
	if r.keepFor == f && r.keepDict == r.dictGen {
		return r.keep
	}
	if cap(r.keep) < r.dictN {
		r.keep = make([]bool, r.dictN)
	}
	r.keep = r.keep[:r.dictN]
	// The dictionary's own buffers, not copies: Eval only reads them.
	offs := arrow.Int32Traits.CastToBytes(r.dictOffs[:r.dictN+1])
	data := array.NewData(r.col.Out, r.dictN,
		[]*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes(r.dictData)}, nil, 0, 0)
	d := array.MakeFromData(data)
	f.Eval(d, r.keep)
	d.Release()
	data.Release()
	r.keepFor, r.keepDict = f, r.dictGen
	return r.keep
}

// filterDict answers the filter for the rows of a dictionary segment
// (idx: the indices of its non-NULL rows, every one checked) and returns
// the rows whose values are to be materialised.
func (r *Reader) filterDict(s segment, idx []uint32) []bool {
	fs := r.filt
	keep := r.dictKeep(fs.f)
	pass := fs.pass[s.row : s.row+s.k]
	var live []bool
	if fs.live != nil {
		live = fs.live[s.row : s.row+s.k]
	}
	switch {
	case s.defs == nil && live == nil:
		for i, ix := range idx[:len(pass)] {
			pass[i] = keep[ix]
		}
	case s.defs == nil:
		for i, ix := range idx[:len(pass)] {
			pass[i] = live[i] && keep[ix]
		}
	default:
		j := 0
		for i, d := range s.defs {
			p := fs.f.Null
			if d != 0 {
				p = keep[idx[j]]
				j++
			}
			pass[i] = p && (live == nil || live[i])
		}
	}
	if fs.matAll {
		return live
	}
	if fs.noValues {
		if fs.none == nil {
			fs.none = make([]bool, len(fs.pass))
		}
		return fs.none[:s.k]
	}
	return pass
}

// filterOther is filterDict for a segment of another encoding: its rows
// pass as far as live goes, for the caller to evaluate.
func (r *Reader) filterOther(s segment) {
	fs := r.filt
	var live []bool
	if fs.live != nil {
		live = fs.live[s.row : s.row+s.k]
	}
	fillLive(fs.pass[s.row:s.row+s.k], live)
	fs.exact = false
	if fs.noValues {
		if fs.undecided == nil {
			fs.undecided = make([]bool, len(fs.pass))
		}
		for i := s.row; i < s.row+s.k; i++ {
			fs.undecided[i] = true
		}
	}
}
