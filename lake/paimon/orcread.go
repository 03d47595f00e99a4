package paimon

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/lake/orc"
)

// openORC reads an ORC data file through lake/orc. Paimon's ORC files carry
// field ids only as type attributes, which lake/orc does not expose, so
// columns are matched by the name the file's own schema version gives each
// field id (renames therefore still resolve).
func openORC(ctx context.Context, s fileReadSpec) (*fileBatches, error) {
	f, err := s.fsys.Open(ctx, s.path)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", s.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	if err := s.checkSize(f.Size()); err != nil {
		return nil, err
	}
	of, err := orc.Open(f, f.Size(), orc.WithName(s.path))
	if err != nil {
		return nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, s.path, err)
	}
	out, err := outSchema(s.want, s.system)
	if err != nil {
		return nil, err
	}
	fileCols := map[string]int{}
	for i, fl := range of.Schema().Fields() {
		fileCols[fl.Name] = i
	}
	nameOfID := map[int]string{}
	for _, fl := range s.fileSchema.Fields {
		nameOfID[fl.ID] = fl.Name
	}
	src := make([]int, len(out.Fields()))
	for i, w := range s.want {
		src[i] = -1
		if name, inFile := nameOfID[w.ID]; inFile {
			if c, ok := fileCols[name]; ok {
				src[i] = c
			}
		}
	}
	if s.system {
		n := len(s.want)
		for j, name := range []string{SequenceNumberColumn, ValueKindColumn} {
			c, ok := fileCols[name]
			if !ok {
				return nil, fmt.Errorf("%w: data file %s: no %s column in a primary-key file", ErrCorrupt, s.path, name)
			}
			src[n+j] = c
		}
	}
	// Selected file columns in file order, and each one's batch position.
	var cols []int
	order := map[int]int{}
	for c := range of.Schema().Fields() {
		for _, sc := range src {
			if sc == c {
				order[c] = len(cols)
				cols = append(cols, c)
				break
			}
		}
	}
	stripes := of.Stripes()
	var sel []int
	var starts []int64
	var start int64
	for i, st := range stripes {
		if s.slice != nil {
			if !s.slice.OwnsStripe(st, f.Size()) {
				start += int64(st.NumRows)
				continue
			}
		}
		if s.pred == nil || stripeMayMatch(s.pred, of, st, s.want, src) {
			sel = append(sel, i)
			starts = append(starts, start)
		} else {
			s.metrics.skippedGroup()
		}
		start += int64(st.NumRows)
	}
	bs := s.batchSize
	if bs <= 0 {
		bs = 8192
	}
	unit := orcTimestampUnit(s.want)
	ok = true
	return unitBatches(ctx, s, f, out, len(cols) == 0, src, order, unitReads{
		count: len(sel),
		start: func(i int) int64 { return starts[i] },
		rows:  func(i int) int64 { return int64(stripes[sel[i]].NumRows) },
		open: func(i int) (array.RecordReader, error) {
			r, err := of.NewRecordReader(ctx, orc.ReadOptions{Columns: cols, Stripes: []int{sel[i]}, BatchSize: bs, Mem: s.mem, TimestampUnit: unit})
			if err != nil {
				return nil, fmt.Errorf("data file %s stripe %d: %w", s.path, sel[i], err)
			}
			return r, nil
		},
	}), nil
}

// stripeMayMatch prunes an ORC stripe by its column statistics (integer,
// floating point, string and date columns; anything else never prunes).
func stripeMayMatch(p *bound, of *orc.File, st orc.StripeInfo, want []DataField, src []int) bool {
	if st.Stats == nil {
		return true
	}
	names := of.Schema().Fields()
	rows := int64(st.NumRows)
	return p.mayMatch(func(name string) colStats {
		for i, w := range want {
			if w.Name != name || src[i] < 0 {
				continue
			}
			id := of.ColumnID(names[src[i]].Name)
			if id < 0 || id >= len(st.Stats) {
				return colStats{}
			}
			cs := st.Stats[id]
			if !cs.HasNumValues {
				return colStats{}
			}
			out := colStats{nullCount: rows - int64(cs.NumValues), known: true}
			switch {
			case cs.Int != nil && cs.Int.HasMin && cs.Int.HasMax:
				switch w.Type.Root {
				case TinyInt, SmallInt, Int, BigInt:
					out.min, out.max = cs.Int.Min, cs.Int.Max
				}
			case cs.Double != nil && cs.Double.HasMin && cs.Double.HasMax:
				if w.Type.Root == Double || w.Type.Root == Float {
					if cs.Double.Min == cs.Double.Min && cs.Double.Max == cs.Double.Max {
						out.min, out.max = cs.Double.Min, cs.Double.Max
					}
				}
			case cs.String != nil && cs.String.HasMin && cs.String.HasMax:
				if w.Type.Root == VarChar || w.Type.Root == Char {
					out.min, out.max = cs.String.Min, cs.String.Max
				}
			case cs.Date != nil && cs.Date.HasMin && cs.Date.HasMax:
				if w.Type.Root == Date {
					out.min, out.max = int64(cs.Date.Min), int64(cs.Date.Max)
				}
			}
			return out
		}
		return colStats{}
	}, rows)
}

// orcTimestampUnit is the coarsest unit that keeps every wanted timestamp's
// digits: nanoseconds overflow int64 outside 1677..2262, so a table whose
// timestamps are at most microsecond precise must not be read through them.
func orcTimestampUnit(want []DataField) orc.TimestampUnit {
	p := 0
	var walk func(t DataType)
	walk = func(t DataType) {
		switch t.Root {
		case Timestamp, TimestampLTZ:
			p = max(p, t.Precision)
		}
		for _, c := range []*DataType{t.Element, t.Key, t.Value} {
			if c != nil {
				walk(*c)
			}
		}
		for _, f := range t.Fields {
			walk(f.Type)
		}
	}
	for _, w := range want {
		walk(w.Type)
	}
	switch {
	case p <= 3:
		return orc.Milliseconds
	case p <= 6:
		return orc.Microseconds
	}
	return orc.Nanoseconds
}
