package server

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// analyze runs ANALYZE TABLE: the table computes and keeps its statistics
// (catalog.Analyzer), which the optimizer then reads. A column list is
// accepted and the whole table analysed, as one scan serves all columns.
func (s *Session) analyze(ctx context.Context, n *sql.Analyze, w mysqlwire.ResultWriter) error {
	_, _, tb, err := s.ResolveTable(ctx, n.Table)
	if err != nil {
		return err
	}
	a, ok := tb.(catalog.Analyzer)
	if !ok {
		return errorf(errNotSupported, "ANALYZE TABLE is not supported on table '%s' of this catalog", tb.Name())
	}
	if err := checkColumns(tb, n.Columns); err != nil {
		return err
	}
	if _, err := a.Analyze(ctx, s.mem()); err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
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
