package planner

import (
	"fmt"

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
