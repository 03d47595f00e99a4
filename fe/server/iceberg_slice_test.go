package server

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestIcebergSlicedSQL: with file_split_size small, a type=iceberg
// catalog's data files (one row group each, position and equality
// deletes) are read as several splits each, the row groups shared by
// rows, and SQL answers (derived by hand from the writer's rule) equal
// the unsliced read's; EXPLAIN counts the data files once and the splits
// apart (inputSplitNum, dataFiles).
func TestIcebergSlicedSQL(t *testing.T) {
	defer paimon.SetSliceLimitsForTest(1, 1, 100)()
	f := startIcebergFE(t)
	db := f.db("")
	wh := t.TempDir()
	const n = 6000
	if _, err := icebergtest.OrdersBig(context.Background(), wh, "shop", "big", n, map[string]string{
		"write.parquet.page-size-bytes": "2048", "write.parquet.page-row-limit": "300", "write.parquet.row-group-limit": "1000000"}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG ice PROPERTIES ('type'='iceberg', 'iceberg.catalog.type'='hadoop', 'warehouse'='%s')`, wh))
	var cnt, cents, eastMax, late int64
	for id := int64(1); id <= n+50; id++ {
		if id%17 == 3 || id%17 == 5 {
			if id <= n {
				continue
			}
			late++ // appended after the deletes
		}
		o := icebergtest.Order(id)
		cnt++
		cents += o.Cents
		if o.Region == "east" && o.Customer == "c007" {
			eastMax = max(eastMax, id)
		}
	}
	wantSum := fmt.Sprintf("%d|%d.%02d", cnt, cents/100, cents%100)
	splitsRe := regexp.MustCompile(`inputSplitNum=(\d+)`)
	filesRe := regexp.MustCompile(`dataFiles=(\d+)`)
	for _, split := range []string{"", "20000", "5000"} {
		if split != "" {
			mustExec(t, db, "SET file_split_size = "+split)
		}
		for _, c := range []struct{ q, want string }{
			{"SELECT count(*), sum(amount) FROM ice.shop.big", wantSum},
			{"SELECT count(*) FROM ice.shop.big WHERE customer = 'c003' OR customer = 'c005'", strconv.FormatInt(late, 10)},
			{"SELECT max(id) FROM ice.shop.big WHERE region = 'east' AND customer = 'c007'", strconv.FormatInt(eastMax, 10)},
			{"SELECT count(DISTINCT id) FROM ice.shop.big", strconv.FormatInt(cnt, 10)},
		} {
			if got := strings.Join(rows(t, db, c.q), ","); got != c.want {
				t.Errorf("file_split_size %q: %s: got %s, want %s", split, c.q, got, c.want)
			}
		}
		ex := strings.Join(rows(t, db, "EXPLAIN SELECT id FROM ice.shop.big"), "\n")
		sm, fm := splitsRe.FindStringSubmatch(ex), filesRe.FindStringSubmatch(ex)
		if sm == nil || fm == nil {
			t.Fatalf("EXPLAIN without inputSplitNum or dataFiles:\n%s", ex)
		}
		splits, _ := strconv.Atoi(sm[1])
		files, _ := strconv.Atoi(fm[1])
		if split == "" && splits != files || split != "" && splits <= files {
			t.Errorf("file_split_size %q: %d splits for %d data files:\n%s", split, splits, files, ex)
		}
	}
	// Every column of rows around a slice bound, through the text and the
	// binary protocol (prepared, with and without an argument), in
	// sessions cutting the files small: the ids the rule keeps, in order.
	p := newProtoClients(t, f, "")
	mustExec(t, p.text, "SET file_split_size = 5000")
	mustExec(t, p.bin, "SET file_split_size = 5000")
	got := p.readBoth(t, "SELECT id, customer, amount, day, ts, region FROM ice.shop.big WHERE id BETWEEN 2900 AND 3100 ORDER BY id")
	var wantIDs []string
	for id := int64(2900); id <= 3100; id++ {
		if id%17 != 3 && id%17 != 5 {
			wantIDs = append(wantIDs, strconv.FormatInt(id, 10))
		}
	}
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r[0])
	}
	if !slices.Equal(gotIDs, wantIDs) {
		t.Errorf("ids 2900..3100 through both protocols: %v, want %v", gotIDs, wantIDs)
	}
	if len(got) > 0 {
		o := icebergtest.Order(2900)
		if want := fmt.Sprintf("%s|%d.%02d|%s", o.Customer, o.Cents/100, o.Cents%100, o.Region); strings.Join([]string{got[0][1], got[0][2], got[0][5]}, "|") != want {
			t.Errorf("row 2900: %q, want customer|amount|region %s", got[0], want)
		}
	}
	var tail int64
	for id := int64(5991); id <= n+50; id++ {
		if id > n || (id%17 != 3 && id%17 != 5) {
			tail++
		}
	}
	if got := rows(t, db, "SELECT count(*) FROM ice.shop.big WHERE id > 5990"); !slices.Equal(got, []string{strconv.FormatInt(tail, 10)}) {
		t.Errorf("ids above 5990: %q, want %d", got, tail)
	}
}
