package orc

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ORC has no checksums: a flipped byte inside a stream's values decodes
// into another value as readily as into an error. What the file does
// carry is each stripe's column statistics, written from the values
// themselves: a non-NULL count, min and max, and for integers and strings
// the sum (of values, of byte lengths); and ORC strings are UTF-8. (DOUBLE
// sums are not checked: writers add them up in different orders, and some
// record other figures.) stripeCheck holds every top-level
// column of a stripe to them, so damage that moves a value outside its
// stripe's bounds, or changes a count or a sum, is an ErrCorrupt naming
// the stripe and column rather than a wrong row. Statistics the writer did
// not record check nothing; a damaged value that stays within every bound
// and sum cannot be told from data.
type stripeCheck struct {
	stripe int
	cols   []colCheck
}

type colCheck struct {
	field int    // index in the batch
	id    int    // ORC column id
	name  string // for messages
	st    *ColumnStats
	count uint64
	sum   int64
	sumOK bool // no overflow so far (Java drops the sum on overflow)
	bytes int64
}

// newStripeCheck prepares the checks of stripe si for the reader's
// top-level columns; nil when the stripe has no statistics.
func (r *recordReader) newStripeCheck(si int) *stripeCheck {
	stats := r.f.stripes[si].Stats
	if stats == nil {
		return nil
	}
	c := &stripeCheck{stripe: si}
	for i, fl := range r.schema.Fields() {
		v, ok := fl.Metadata.GetValue(MetaColumnID)
		if !ok {
			continue
		}
		id, err := strconv.Atoi(v)
		if err != nil || id <= 0 || id >= len(stats) {
			continue
		}
		c.cols = append(c.cols, colCheck{field: i, id: id, name: fl.Name, st: &stats[id], sumOK: true})
	}
	return c
}

func (c *stripeCheck) bad(cc *colCheck, format string, a ...any) error {
	return fmt.Errorf("%w: stripe %d column %d (%s): %s, against the stripe's statistics", ErrCorrupt, c.stripe, cc.id, cc.name, fmt.Sprintf(format, a...))
}

// batch checks the values of one batch of the stripe.
func (c *stripeCheck) batch(rec arrow.RecordBatch) error {
	for k := range c.cols {
		cc := &c.cols[k]
		col := rec.Column(cc.field)
		cc.count += uint64(col.Len() - col.NullN())
		st := cc.st
		switch a := col.(type) {
		case *array.String:
			if st.String == nil {
				continue
			}
			s := st.String
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				v := a.Value(i)
				cc.bytes += int64(len(v))
				if s.HasMin && v < s.Min || s.HasMax && v > s.Max {
					return c.bad(cc, "row %d holds a string of %d bytes outside [min, max]", i, len(v))
				}
				// ORC strings are UTF-8; a flipped byte of ASCII text never is.
				if !utf8.ValidString(v) {
					return c.bad(cc, "row %d holds a string of %d bytes that is not UTF-8", i, len(v))
				}
			}
		case *array.Int8:
			if err := c.ints(cc, a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }); err != nil {
				return err
			}
		case *array.Int16:
			if err := c.ints(cc, a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }); err != nil {
				return err
			}
		case *array.Int32:
			if err := c.ints(cc, a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }); err != nil {
				return err
			}
		case *array.Int64:
			if err := c.ints(cc, a.Len(), a.IsNull, func(i int) int64 { return a.Value(i) }); err != nil {
				return err
			}
		case *array.Float32:
			if err := c.floats(cc, a.Len(), a.IsNull, func(i int) float64 { return float64(a.Value(i)) }); err != nil {
				return err
			}
		case *array.Float64:
			if err := c.floats(cc, a.Len(), a.IsNull, a.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *stripeCheck) ints(cc *colCheck, n int, null func(int) bool, val func(int) int64) error {
	s := cc.st.Int
	if s == nil {
		return nil
	}
	for i := 0; i < n; i++ {
		if null(i) {
			continue
		}
		v := val(i)
		if s.HasMin && v < s.Min || s.HasMax && v > s.Max {
			return c.bad(cc, "row %d holds %d outside [%d, %d]", i, v, s.Min, s.Max)
		}
		if cc.sumOK {
			t := cc.sum + v
			if (v > 0 && t < cc.sum) || (v < 0 && t > cc.sum) {
				cc.sumOK = false
			}
			cc.sum = t
		}
	}
	return nil
}

func (c *stripeCheck) floats(cc *colCheck, n int, null func(int) bool, val func(int) float64) error {
	s := cc.st.Double
	if s == nil {
		return nil
	}
	for i := 0; i < n; i++ {
		if null(i) {
			continue
		}
		v := val(i)
		if math.IsNaN(v) {
			continue
		}
		if s.HasMin && v < s.Min || s.HasMax && v > s.Max {
			return c.bad(cc, "row %d holds %g outside [%g, %g]", i, v, s.Min, s.Max)
		}
	}
	return nil
}

// end checks what only the whole stripe tells: counts and sums.
func (c *stripeCheck) end() error {
	for k := range c.cols {
		cc := &c.cols[k]
		st := cc.st
		if st.HasNumValues && st.NumValues != cc.count {
			return c.bad(cc, "%d values read, %d recorded", cc.count, st.NumValues)
		}
		if s := st.Int; s != nil && s.HasSum && cc.sumOK && s.Sum != cc.sum {
			return c.bad(cc, "the values sum to %d, %d recorded", cc.sum, s.Sum)
		}
		if s := st.String; s != nil && s.HasSum && s.Sum != cc.bytes {
			return c.bad(cc, "the strings hold %d bytes, %d recorded", cc.bytes, s.Sum)
		}
	}
	return nil
}
