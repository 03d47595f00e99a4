package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/internal/tzone"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// ---- tbl$changelog -------------------------------------------------------------
//
// tbl$changelog (Fluss's $changelog virtual table) is a bounded batch read of
// every selected bucket's log, [start, stop), with the change types kept:
// stop is the bucket's latest offset read at planning time, start follows
// the startup mode (Fluss's scan.startup.mode, given the Doris way as
// session variables) and is raised by `_log_offset >= n` and
// `_commit_timestamp >= t` conjuncts. The BE still applies every filter, so
// pushing a start offset only saves reading, never changes rows.
//
// The fragment names the metadata columns by negative column numbers
// (record.ChangelogWireColumn); table columns keep their positions.

// Session variables of tbl$changelog.
const (
	varChangelogStartupMode = "fluss_changelog_startup_mode"
	varChangelogStartupTs   = "fluss_changelog_startup_timestamp"
)

// Startup modes (Fluss's scan.startup.mode values).
const (
	startupEarliest  = "earliest"
	startupLatest    = "latest"
	startupTimestamp = "timestamp"
)

// metaCount is the number of metadata columns a changelog target's Columns
// start with.
var metaCount = len(record.ChangelogColumns())

// changelogWire maps a changelog target column to its fragment column
// number.
func changelogWire(c int) int {
	if c < metaCount {
		return record.ChangelogWireColumn(c)
	}
	return c - metaCount
}

// ---- tbl$binlog ----------------------------------------------------------------
//
// tbl$binlog (Fluss's $binlog virtual table, primary-key tables only) plans
// exactly as tbl$changelog; the fragment carries ScanOptions.binlog and the
// BE folds each range's records: +I an insert, -D a delete, a -U and the +U
// after it one update at the +U's offset. A range that starts between a -U
// and its +U (startup mode latest or timestamp at that point) yields an
// update whose before is NULL; a -U with no +U after it in the range, an
// update whose after is NULL: the row is kept, never dropped silently.
//
// Offset bounds from WHERE are widened by one record on each side for the
// read, so the -U of an update at the bound is still paired; the BE's filter
// on the folded rows then keeps exactly the rows WHERE asks for.

// binlogWire maps a binlog target column (metadata, before, after) to its
// fragment column number.
func binlogWire(c int) int { return record.BinlogWireColumn(c) }

type startup struct {
	mode string
	ts   int64 // ms, mode timestamp
}

func (s startup) String() string {
	if s.mode == startupTimestamp {
		return fmt.Sprintf("%s(%d)", s.mode, s.ts)
	}
	return s.mode
}

func changelogStartup(vars map[string]string) (startup, error) {
	m := strings.ToLower(strings.TrimSpace(vars[varChangelogStartupMode]))
	switch m {
	case "", startupEarliest:
		return startup{mode: startupEarliest}, nil
	case startupLatest:
		return startup{mode: startupLatest}, nil
	case startupTimestamp:
		v := strings.TrimSpace(vars[varChangelogStartupTs])
		ts, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ts < 0 {
			return startup{}, newErr(fmt.Sprintf("Session variable '%s' is 'timestamp', so '%s' must be set to milliseconds since the epoch (got '%s')",
				varChangelogStartupMode, varChangelogStartupTs, v), catalog.ErrInvalidProperty)
		}
		return startup{mode: startupTimestamp, ts: ts}, nil
	}
	return startup{}, newErr(fmt.Sprintf("Invalid value '%s' for session variable '%s': expected one of earliest, latest, timestamp",
		vars[varChangelogStartupMode], varChangelogStartupMode), catalog.ErrInvalidProperty)
}

// changelogBounds are the offset and time bounds the WHERE conjuncts on the
// metadata columns imply: rows outside them cannot match.
type changelogBounds struct {
	minOffset int64 // -1: none
	maxOffset int64 // exclusive; -1: none
	minTs     int64 // ms; -1: none
}

func metadataBounds(preds []catalog.Predicate, vars map[string]string) changelogBounds {
	b := changelogBounds{minOffset: -1, maxOffset: -1, minTs: -1}
	for _, p := range preds {
		if len(p.Values) != 1 {
			continue
		}
		switch p.Column {
		case record.ChangelogLogOffset:
			n, ok := p.Values[0].(int64)
			if !ok {
				continue
			}
			lo, hi := int64(-1), int64(-1)
			switch p.Op {
			case ">=":
				lo = n
			case ">":
				lo = n + 1
			case "=":
				lo, hi = n, n+1
			case "<":
				hi = n
			case "<=":
				hi = n + 1
			}
			if lo >= 0 && lo > b.minOffset {
				b.minOffset = lo
			}
			if hi >= 0 && (b.maxOffset < 0 || hi < b.maxOffset) {
				b.maxOffset = hi
			}
		case record.ChangelogCommitTimestamp:
			switch p.Op {
			case ">=", ">", "=":
			default:
				continue
			}
			s, ok := p.Values[0].(string)
			if !ok {
				continue
			}
			// The literal is read in the session zone and in UTC and the
			// earlier instant kept: the bound stays below every row the
			// engine's comparison keeps, whichever of the two it applies.
			ms, ok := parseInstantMillis(s, tzone.LocationOrUTC(vars[varTimeZone]))
			if utc, uok := parseInstantMillis(s, time.UTC); ok && uok {
				ms = min(ms, utc)
			}
			if ok && ms > b.minTs {
				b.minTs = ms
			}
		}
	}
	return b
}

// parseInstantMillis reads a datetime literal in loc to whole milliseconds,
// rounded down so the bound never excludes a matching row.
func parseInstantMillis(s string, loc *time.Location) (int64, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UnixMilli(), true
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

func (p *flussPlan) planChangelog(ctx context.Context) (*Result, error) {
	binlog := p.st.Mode == fluss.ReadBinlog
	wire, what := changelogWire, "changelog"
	if binlog {
		wire, what = binlogWire, "binlog"
	}
	st, err := changelogStartup(p.req.Vars)
	if err != nil {
		return nil, err
	}
	schema, err := outputSchema(p.st.Columns, p.proj, p.req.Pruned)
	if err != nil {
		return nil, err
	}
	wireProj := make([]int, len(p.proj))
	for i, c := range p.proj {
		wireProj[i] = wire(c)
	}
	filters := filtersFor(p.req.Predicates, p.st.Columns)
	limit := limitOf(p.req.Limit)
	if binlog {
		// Only the metadata columns are filtered on the BE; a condition on
		// an image is the FE's, so a row cap there could cut rows too soon.
		kept := filters[:0]
		for _, f := range filters {
			if int(f.Column) < metaCount {
				kept = append(kept, f)
			}
		}
		if len(kept) < len(filters) || len(kept) < len(p.req.Predicates) {
			limit = -1
		}
		filters = kept
	}
	for _, f := range filters {
		f.Column = int32(wire(int(f.Column)))
	}
	var ors []*inletpb.FilterOr
	if !binlog {
		ors = orFiltersFor(p.req.OrPredicates, p.st.Columns)
		for _, o := range ors {
			for _, f := range o.Any {
				f.Column = int32(wire(int(f.Column)))
			}
		}
	}
	p.frag = &inletpb.Fragment{
		QueryId:      p.req.QueryID,
		ScanId:       p.req.ScanID,
		Fluss:        p.flussTable(),
		OutputSchema: schema,
		Projection:   int32s(wireProj),
		Filters:      filters,
		LogFilterOr:  ors,
		Limit:        limit,
		Options:      scanOptions(p.req.Vars),
	}
	p.frag.Options.Binlog = binlog
	p.counts.Mode = p.mode.String()
	p.counts.ReadMode = what

	bounds := metadataBounds(p.req.Predicates, p.req.Vars)
	if binlog {
		if bounds.minOffset > 0 {
			bounds.minOffset--
		}
		if bounds.maxOffset >= 0 {
			bounds.maxOffset++
		}
	}
	_, selected, err := p.partitions(ctx)
	if err != nil {
		return nil, err
	}
	states, err := p.readStates(ctx, selected, true)
	if err != nil {
		return nil, err
	}
	var extra []string
	extra = append(extra, what+": startupMode="+st.String())
	var pushed []string
	if bounds.minOffset >= 0 {
		pushed = append(pushed, fmt.Sprintf("_log_offset>=%d", bounds.minOffset))
	}
	if bounds.maxOffset >= 0 {
		pushed = append(pushed, fmt.Sprintf("_log_offset<%d", bounds.maxOffset))
	}
	tsStart := int64(-1)
	if st.mode == startupTimestamp {
		tsStart = st.ts
	}
	tsPushed := false
	if bounds.minTs > tsStart {
		tsStart, tsPushed = bounds.minTs, true
	}
	var retained []string
	for _, s := range states {
		var byTs map[int32]int64
		if tsStart >= 0 {
			byTs, err = p.offsetsForTimestamp(ctx, s, tsStart)
			if err != nil {
				if !tsPushed {
					return nil, err
				}
				// The bound came from WHERE, which the BE applies anyway:
				// read without it rather than fail.
				byTs = nil
				tsPushed = false
			}
		}
		for b := int32(0); b < p.nbkt; b++ {
			stop := s.latest[b]
			earliest, known := s.earliest[b]
			if !known {
				earliest = 0
			}
			start := earliest
			if st.mode == startupLatest {
				start = stop
			}
			if o, ok := byTs[b]; ok && o > start {
				start = o
			}
			if bounds.minOffset > start {
				start = bounds.minOffset
			}
			if bounds.maxOffset >= 0 && bounds.maxOffset < stop {
				stop = bounds.maxOffset
			}
			if start >= stop {
				continue
			}
			// Offsets below the earliest one are gone (retention, or tiered
			// and removed): the read starts at what is still there.
			if earliest > 0 && st.mode == startupEarliest && bounds.minOffset < earliest && byTs == nil {
				retained = append(retained, fmt.Sprintf("%s from %d", affinity(s.id(), b), earliest))
			}
			p.add(p.flussRange(inletpb.RangeType_LOG, s, b, start, stop))
		}
	}
	if tsPushed {
		pushed = append(pushed, fmt.Sprintf("_commit_timestamp>=%d", bounds.minTs))
	}
	if len(pushed) > 0 {
		extra[0] += ", pushedStart=" + strings.Join(pushed, " AND ")
	}
	if binlog {
		// A LIMIT counts folded rows, not records: no range is cut.
	} else if l := p.capLogRanges(); l != "" {
		extra = append(extra, l)
	}
	if len(retained) > 0 {
		extra = append(extra, fmt.Sprintf(what+": %d bucket(s) start at the earliest offset fluss still holds; older changes were deleted by log retention: %s",
			len(retained), strings.Join(retained, ", ")))
	}
	res := p.result()
	for i, l := range res.Lines {
		if strings.HasPrefix(l, "TABLE: ") {
			res.Lines[i] += "$" + what
		}
	}
	// Insert the changelog lines after the flussScan line, and show the
	// ranges without VERBOSE: they are what the read covers.
	for i, l := range res.Lines {
		if strings.HasPrefix(l, "flussScan: ") {
			rest := append(append(append([]string(nil), extra...), rangeLines(p.frag.Ranges)...), res.Lines[i+1:]...)
			res.Lines = append(res.Lines[:i+1], rest...)
			break
		}
	}
	return res, nil
}

// offsetsForTimestamp is, per bucket, the first offset whose batch was
// committed at or after ts (ListOffsets by timestamp).
func (p *flussPlan) offsetsForTimestamp(ctx context.Context, s *partState, ts int64) (map[int32]int64, error) {
	var part *int64
	if s.info != nil {
		id := s.info.ID
		part = &id
	}
	m, err := p.meta.ListOffsets(ctx, p.st.Path, part, client.AtTimestamp(ts))
	if err != nil {
		return nil, fmt.Errorf("planner: table %s: offsets at timestamp %d: %w", p.name, ts, err)
	}
	return m, nil
}
