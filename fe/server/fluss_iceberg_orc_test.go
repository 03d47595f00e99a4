package server

import (
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/minifluss"
)

// TestFlussIcebergORCUnionRead: icebergScenario with every table created
// 'iceberg.write.format.default' = 'orc', so the emulator tiers ORC data
// files (and ORC equality delete files for the PK tables). Under every
// union-read mode the read equals the Fluss-only read and the model of the
// written history, EXPLAIN shows the lake half, and filtered reads and
// aggregates agree with the Fluss-only read.
func TestFlussIcebergORCUnionRead(t *testing.T) {
	text, model := icebergScenario()
	const lake = "'table.datalake.enabled' = 'true'"
	if !strings.Contains(text, lake) {
		t.Fatal("scenario no longer enables the lake as expected")
	}
	text = strings.ReplaceAll(text, lake, lake+", 'iceberg.write.format.default' = 'orc'")
	sc, err := minifluss.ParseScenario(text)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFEOn(t, sc, "iceberg")
	db := f.db("")
	// Then with the ORC files cut into slices of a few hundred bytes: a
	// slice reads the stripes whose middle byte it holds.
	for _, split := range []string{"", "300"} {
		if split != "" {
			mustExec(t, db, "SET file_split_size = "+split)
		}
		flussIcebergORCChecks(t, db, model, split)
	}
	// The lake really holds ORC: every data file under the warehouse is
	// .orc.
	n, err := countFiles(f.warehouse, ".orc")
	if err != nil || n == 0 {
		t.Fatalf("ORC files in the warehouse: %d %v", n, err)
	}
	if m, _ := countFiles(f.warehouse, ".parquet"); m != 0 {
		t.Fatalf("%d Parquet files in an ORC lake", m)
	}
}

func flussIcebergORCChecks(t *testing.T, db *sql.DB, model map[string][]string, split string) {
	for _, tbl := range []string{"logb", "logu", "logp", "pk", "pkp"} {
		t.Run(tbl+"/split"+split, func(t *testing.T) {
			only := sortedRows(t, db, "SELECT * FROM fl_dis.ice."+tbl)
			for _, cat := range []string{"fl_auto", "fl_req"} {
				if got := sortedRows(t, db, fmt.Sprintf("SELECT * FROM %s.ice.%s", cat, tbl)); !slices.Equal(got, only) {
					t.Fatalf("%s: union read != Fluss-only read\nunion: %q\nfluss: %q", cat, got, only)
				}
				if got := sortedRows(t, db, fmt.Sprintf("SELECT id, name FROM %s.ice.%s", cat, tbl)); !slices.Equal(got, model[tbl]) {
					t.Fatalf("%s: rows differ from the model\ngot:  %q\nwant: %q", cat, got, model[tbl])
				}
				var plan []string
				for _, l := range rows(t, db, fmt.Sprintf("EXPLAIN SELECT * FROM %s.ice.%s", cat, tbl)) {
					plan = append(plan, strings.TrimSpace(l))
				}
				p := strings.Join(plan, "\n")
				if !strings.Contains(p, "unionRead=yes") || strings.Contains(p, "lakeSplits=0,") || !strings.Contains(p, "lakeFormat=iceberg") {
					t.Fatalf("%s: EXPLAIN does not show an Iceberg union read:\n%s", cat, p)
				}
				if split != "" {
					var splits, files int
					fmt.Sscanf(p[strings.Index(p, "lakeSplits="):], "lakeSplits=%d", &splits)
					fmt.Sscanf(p[strings.Index(p, "dataFiles="):], "dataFiles=%d", &files)
					if splits <= files {
						t.Fatalf("%s: file_split_size %s: %d lake splits for %d ORC data files:\n%s", cat, split, splits, files, p)
					}
				}
				if strings.HasPrefix(tbl, "pk") == strings.Contains(p, "equalityDeleteFiles=0") {
					t.Fatalf("%s: equality delete files in the plan of %s:\n%s", cat, tbl, p)
				}
			}
			qs := []string{"SELECT id, name FROM %s.ice." + tbl + " WHERE id BETWEEN 5 AND 12", "SELECT count(*), sum(id) FROM %s.ice." + tbl,
				"SELECT * FROM %s.ice." + tbl + " WHERE name = 'n7' OR name IS NULL"}
			if tbl == "logp" || tbl == "pkp" {
				qs = append(qs, "SELECT * FROM %s.ice."+tbl+" WHERE dt = 'b' OR dt = 'y'", "SELECT dt, count(*) FROM %s.ice."+tbl+" GROUP BY dt")
			}
			if tbl == "logb" {
				qs = append(qs, "SELECT id, amt, d, ts, ltz, ok FROM %s.ice.logb WHERE amt > 20 AND d <= '2026-01-15'")
			}
			for _, q := range qs {
				if a, b := sortedRows(t, db, fmt.Sprintf(q, "fl_req")), sortedRows(t, db, fmt.Sprintf(q, "fl_dis")); !slices.Equal(a, b) {
					t.Fatalf("%s: union %q, Fluss-only %q", q, a, b)
				}
			}
			lake := sortedRows(t, db, fmt.Sprintf("SELECT id, name FROM fl_auto.ice.`%s$lake`", tbl))
			if !strings.HasPrefix(tbl, "pk") && len(lake) != 40 {
				t.Fatalf("%s$lake: %d rows, want ids 1..40", tbl, len(lake))
			} else if strings.HasPrefix(tbl, "pk") && len(lake) != 18 {
				t.Fatalf("%s$lake: %d rows, want 18: %q", tbl, len(lake), lake)
			}
		})
	}
}

// countFiles counts the files under dir whose names end in ext.
func countFiles(dir, ext string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			n++
		}
		return nil
	})
	return n, err
}
