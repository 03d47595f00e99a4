package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// analyze runs ANALYZE TABLE: the table computes and keeps its statistics
// (catalog.Analyzer), which the optimizer then reads; for the internal
// catalog a column list is accepted and the whole table analysed, as one
// scan serves all columns. A table read through BEs (catalog.StatsKeeper:
// Paimon, Fluss) is analysed by a query over it instead (analyzeByScan).
func (s *Session) analyze(ctx context.Context, n *sql.Analyze, w mysqlwire.ResultWriter) error {
	ctl, db, tb, err := s.ResolveTable(ctx, n.Table)
	if err != nil {
		return err
	}
	if err := checkColumns(tb, n.Columns); err != nil {
		return err
	}
	switch a := tb.(type) {
	case catalog.Analyzer:
		if _, err := a.Analyze(ctx, s.mem()); err != nil {
			return err
		}
	case catalog.StatsKeeper:
		if err := s.analyzeByScan(ctx, ctl, db, tb, a, n.Columns); err != nil {
			return err
		}
	default:
		return errorf(errNotSupported, "ANALYZE TABLE is not supported on table '%s' of this catalog", tb.Name())
	}
	return w.OK(mysqlwire.OKResult{})
}

// analyzeByScan analyses a table read through BEs as Doris analyses
// external tables: by a query over it (SELECT cols FROM ctl.db.t), planned
// and run as any other, so a Fluss table's lake and log are read once by
// its union read, and the rows stream through a colstats.Collector (fixed
// memory per column) that checks for cancellation and the statement's
// memory limit at every batch. cols narrows it (empty: every column the
// table analyses); the table keeps the rest from earlier runs.
func (s *Session) analyzeByScan(ctx context.Context, ctl, db string, tb catalog.Table, k catalog.StatsKeeper, cols []string) error {
	all, err := k.AnalyzeColumns()
	if err != nil {
		return err
	}
	// A column of a type Inlet cannot read is not scanned (a query over it
	// would fail); it has no statistics.
	unreadable := map[string]bool{}
	for _, c := range tb.Schema().Columns {
		unreadable[c.Name] = c.Unsupported
	}
	all = slices.DeleteFunc(slices.Clone(all), func(c string) bool {
		return unreadable[c] || (len(cols) > 0 && !slices.Contains(cols, c))
	})
	if len(all) == 0 {
		return errorf(errNotSupported, "ANALYZE TABLE: table '%s' has no column to analyze", tb.Name())
	}
	text := "SELECT " + quoteIdents(all) + " FROM " + quoteIdent(ctl) + "." + quoteIdent(db) + "." + quoteIdent(tb.Name())
	stmt, err := sql.Parse(text)
	if err != nil {
		return err
	}
	q, ok := stmt.(*sql.Select)
	if !ok {
		return fmt.Errorf("internal error: ANALYZE TABLE's scan of '%s' parsed as %T", tb.Name(), stmt)
	}
	_, op, err := s.plan(ctx, q, s.vars)
	if err != nil {
		return err
	}
	env, err := s.env(s.vars)
	if err != nil {
		return err
	}
	ctx = exec.WithParallelism(ctx, int(s.vars.Int("parallel_pipeline_task_num")))
	rr, err := exec.OpenOp(ctx, env, op)
	if err != nil {
		return err
	}
	defer rr.Release()
	coll := colstats.NewCollector(all)
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := memlimit.Check(env.Mem); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(all) {
			return fmt.Errorf("internal error: ANALYZE TABLE's scan of '%s' returned %d columns, want %d", tb.Name(), rec.NumCols(), len(all))
		}
		coll.Add(rec)
	}
	if err := rr.Err(); err != nil {
		return err
	}
	return k.KeepStats(ctx, coll.Stats(s.srv.now().UnixMilli()))
}

func checkColumns(tb catalog.Table, cols []string) error {
	for _, c := range cols {
		if !slices.ContainsFunc(tb.Schema().Columns, func(x catalog.Column) bool { return x.Name == c }) {
			return errorf(bind.ErrUnknownColumn, "Unknown column '%s' in '%s'", c, tb.Name())
		}
	}
	return nil
}

// showStats answers SHOW COLUMN STATS and SHOW TABLE STATS with Doris's
// columns; what Inlet does not track (query counts, partitions) is shown
// as Doris shows it for a table never queried.
func (s *Session) showStats(ctx context.Context, n *sql.Show) (*table, error) {
	_, _, tb, err := s.ResolveTable(ctx, n.Name)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(tb, n.Columns); err != nil {
		return nil, err
	}
	var st *catalog.TableStats
	if cs, ok := tb.(catalog.ColumnStatser); ok {
		if st, err = cs.ColumnStats(ctx); err != nil {
			return nil, err
		}
	}
	rows := int64(-1)
	if rc, ok := tb.(catalog.RowCounter); ok {
		if rows, err = rc.RowCount(ctx); err != nil {
			rows = -1
		}
	}
	when := func(ms int64) string { return time.UnixMilli(ms).In(time.Local).Format(dorisTime) }
	t := &table{}
	if n.Kind == sql.ShowTableStats {
		t.names = []string{"updated_rows", "query_times", "row_count", "updated_time", "columns", "trigger", "new_partition", "user_inject", "enable_auto_analyze", "last_analyze_time"}
		updated, cols, last := "0", "[]", "NULL"
		if st != nil {
			updated = strconv.FormatInt(max(rows-st.Rows, 0), 10)
			var names []string
			for _, c := range tb.Schema().Columns {
				if _, ok := st.Columns[c.Name]; ok {
					names = append(names, c.Name)
				}
			}
			cols = "[" + joinNames(names) + "]"
			last = when(st.UpdatedMS)
		}
		t.addStrings(updated, "0", strconv.FormatInt(rows, 10), last, cols, "MANUAL", "false", "false", "false", last)
		return t, nil
	}
	t.names = []string{"column_name", "index_name", "count", "ndv", "num_null", "data_size", "avg_size_byte", "min", "max", "method", "type", "trigger", "query_times", "updated_time", "update_rows", "last_analyze_row_count", "last_analyze_version"}
	if st == nil {
		return t, nil
	}
	for _, c := range tb.Schema().Columns {
		if len(n.Columns) > 0 && !slices.Contains(n.Columns, c.Name) {
			continue
		}
		cs, ok := st.Columns[c.Name]
		if !ok {
			continue
		}
		avg := 0.0
		if cs.Count > 0 {
			avg = float64(cs.DataSize) / float64(cs.Count)
		}
		minV, maxV := cs.Min, cs.Max
		if minV == "" {
			minV, maxV = "N/A", "N/A"
		}
		t.addStrings(c.Name, tb.Name(), strconv.FormatInt(cs.Count, 10), strconv.FormatInt(cs.NDV, 10),
			strconv.FormatInt(cs.Nulls, 10), strconv.FormatInt(cs.DataSize, 10), strconv.FormatFloat(avg, 'f', -1, 64),
			minV, maxV, "FULL", "FUNDAMENTALS", "MANUAL", "0", when(st.UpdatedMS),
			strconv.FormatInt(max(rows-st.Rows, 0), 10), strconv.FormatInt(st.Rows, 10), "0")
	}
	return t, nil
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
