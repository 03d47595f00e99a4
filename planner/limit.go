package planner

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// capLogRanges narrows a fragment of LOG ranges under a LIMIT with no
// predicate: every record of a LOG range is a row (offsets are dense), so
// the first ranges whose records add up to the limit hold enough rows, and
// the last of them needs only the records that complete it. The others are
// never planned, so no BE reads them. A range whose start is not known at
// planning time (the bucket's earliest, resolved by the BE) leaves the
// fragment as it is; so does anything but LOG ranges (a union's lake half
// may hold the rows, a primary-key range's row count is not its records').
// It returns the EXPLAIN line, or "".
func (p *flussPlan) capLogRanges() string {
	limit := p.req.Limit
	if limit < 0 || len(p.req.Predicates) > 0 || len(p.frag.Ranges) == 0 {
		return ""
	}
	var total int64
	for _, r := range p.frag.Ranges {
		if r.Type != inletpb.RangeType_LOG || r.LogStartOffset < 0 || r.LogStopOffset < r.LogStartOffset {
			return ""
		}
		total += r.LogStopOffset - r.LogStartOffset
	}
	if total <= limit {
		return ""
	}
	var kept []*inletpb.Range
	var rows int64
	for _, r := range p.frag.Ranges {
		if rows >= limit {
			break
		}
		if n := r.LogStopOffset - r.LogStartOffset; rows+n > limit {
			r.LogStopOffset = r.LogStartOffset + (limit - rows)
		}
		rows += r.LogStopOffset - r.LogStartOffset
		kept = append(kept, r)
	}
	before := len(p.frag.Ranges)
	p.frag.Ranges = kept
	p.counts.LogRanges = len(kept)
	return fmt.Sprintf("limit: %d rows are the first %d of %d log records; %d of %d log ranges kept, the last cut short", limit, rows, total, len(kept), before)
}

// capped checks the fragment's row caps against its filters and adds the
// per-range Top-N: a LIMIT or Top-N counted on the BEs is right only when
// they drop every row the WHERE drops, so when a predicate did not become
// a BE filter (a column or a constant it cannot carry) both are taken off
// and the FE alone applies them. EXPLAIN says what the BEs were given.
func capped(res *Result, req Request) *Result {
	if res == nil || res.Fragment == nil {
		return res
	}
	f := res.Fragment
	if len(f.LogFilterOr) > 0 {
		var ors []string
		for _, or := range req.OrPredicates {
			parts := make([]string, len(or))
			for i, p := range or {
				parts[i] = p.String()
			}
			ors = append(ors, "("+strings.Join(parts, " OR ")+")")
		}
		res.Lines = append(res.Lines, "logFilterOr: "+strings.Join(ors, " AND ")+" (sent with log fetches only)")
	}
	exact := len(f.Filters) >= len(req.Predicates)
	off := strings.TrimSpace(req.Vars[varLimitPush]) != "" && !boolVar(req.Vars[varLimitPush])
	if !exact || off || f.PartialAgg != nil {
		if f.Limit >= 0 && len(req.Predicates) > 0 {
			f.Limit = -1
		}
		return res
	}
	if f.Limit >= 0 && len(req.Predicates) > 0 {
		res.Lines = append(res.Lines, fmt.Sprintf("limit: %d rows after the pushed filters; the BEs stop reading once they have them", f.Limit))
	}
	if t := req.TopN; t != nil && f.Limit < 0 && len(t.Keys) > 0 && t.Limit >= 0 {
		var names []string
		if s, err := flight.DeserializeSchema(f.OutputSchema, memory.NewGoAllocator()); err == nil {
			for _, fld := range s.Fields() {
				names = append(names, fld.Name)
			}
		}
		var keys []string
		for _, k := range t.Keys {
			c := int(k.Column)
			if c < 0 || c >= len(f.Projection) {
				return res
			}
			dir := "ASC"
			if k.Desc {
				dir = "DESC"
			}
			name := fmt.Sprintf("$%d", c)
			if c < len(names) {
				name = "`" + strings.ReplaceAll(names[c], "`", "``") + "`"
			}
			keys = append(keys, name+" "+dir)
		}
		f.RangeTopN = t
		res.Lines = append(res.Lines, fmt.Sprintf("rangeTopN: each range returns at most its first %d rows by %s", t.Limit, strings.Join(keys, ", ")))
	}
	return res
}
