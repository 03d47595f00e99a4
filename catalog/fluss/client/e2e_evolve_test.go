package client

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// TestE2ESchemaEvolution: a table altered by ADD COLUMN in the emulator,
// read over TCP by the table's new schema (rows of the old schema id read
// NULL in the new column) and by its old one (a reader planned before the
// change: the new column is left out), from local segments with and
// without projection push-down, and from archived remote segments.
func TestE2ESchemaEvolution(t *testing.T) {
	ctx := context.Background()
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	for _, format := range []string{"ARROW", "COMPACTED"} {
		t.Run(format, func(t *testing.T) {
			name := "ev_" + strings.ToLower(format)
			mustCreate(t, emu, logSpec(name, 1, map[string]string{"table.log.format": format}))
			cl := emuClient(t, emu, WithFS(fileio.Local{}))
			oldInfo, _, _ := tableColumns(t, cl, name)
			appendBatches(t, emu, name, 2, 2) // offsets 0..3, schema 1
			if _, err := emu.AddColumns(ctx, "db", name, []minifluss.Column{{Name: "extra", Type: typemap.String()}}); err != nil {
				t.Fatal(err)
			}
			if err := emu.AppendToBucket(ctx, "db", name, 0, [][]any{{int64(4), "n4", 2.0, "x4"}, {int64(5), "n5", 2.5, nil}}); err != nil {
				t.Fatal(err)
			}
			if err := emu.ArchiveSegments(ctx, "db", name, "", 0, 2); err != nil {
				t.Fatal(err)
			}
			newInfo, _, _ := tableColumns(t, cl, name)
			if newInfo.SchemaID != 2 || oldInfo.SchemaID != 1 {
				t.Fatalf("schema ids %d -> %d", oldInfo.SchemaID, newInfo.SchemaID)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			read := func(info *TableInfo, proj []int, local, remote bool) ([]string, int) {
				t.Helper()
				lr, err := info.LogRange(nil, 0, 0, 6)
				if err != nil {
					t.Fatal(err)
				}
				lr.Projection, lr.LocalProjection, lr.PreferRemote = proj, local, remote
				rd, err := cl.NewLogReader(ctx, lr, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Release()
				var out []string
				for rd.Next() {
					rec := rd.RecordBatch()
					for i := 0; i < int(rec.NumRows()); i++ {
						var vals []string
						for c := 0; c < int(rec.NumCols()); c++ {
							vals = append(vals, rec.Column(c).ValueStr(i))
						}
						out = append(out, strings.Join(vals, "|"))
					}
				}
				if err := rd.Err(); err != nil {
					t.Fatal(err)
				}
				return out, rd.RemoteSegments
			}
			newAll := []string{"0|n0|0|(null)", "1|n1|0.5|(null)", "2|n2|1|(null)", "3|n3|1.5|(null)", "4|n4|2|x4", "5|n5|2.5|(null)"}
			oldAll := []string{"0|n0|0", "1|n1|0.5", "2|n2|1", "3|n3|1.5", "4|n4|2", "5|n5|2.5"}
			for _, tc := range []struct {
				name   string
				info   *TableInfo
				proj   []int
				local  bool
				remote bool
				want   []string
			}{
				{"new schema", newInfo, nil, false, false, newAll},
				{"new schema, remote", newInfo, nil, false, true, newAll},
				{"new column first, pushed down", newInfo, []int{3, 0}, false, false, []string{"(null)|0", "(null)|1", "(null)|2", "(null)|3", "x4|4", "(null)|5"}},
				{"old columns only, pushed down", newInfo, []int{1, 0}, false, false, []string{"n0|0", "n1|1", "n2|2", "n3|3", "n4|4", "n5|5"}},
				{"new column, local projection", newInfo, []int{3}, true, false, []string{"(null)", "(null)", "(null)", "(null)", "x4", "(null)"}},
				{"old schema", oldInfo, nil, false, false, oldAll},
				{"old schema, remote", oldInfo, nil, false, true, oldAll},
				{"old schema, pushed down", oldInfo, []int{2}, false, false, []string{"0", "0.5", "1", "1.5", "2", "2.5"}},
			} {
				got, remote := read(tc.info, tc.proj, tc.local, tc.remote)
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.want)
				}
				if tc.remote && remote == 0 {
					t.Errorf("%s: no remote segment read", tc.name)
				}
			}
		})
	}
}
