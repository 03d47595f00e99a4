package tpch

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readTable(t *testing.T, dir, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name+".tbl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Split(sc.Text(), "|"))
	}
	return out
}

func centsOf(t *testing.T, s string) int64 {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	w, f, ok := strings.Cut(s, ".")
	if !ok || len(f) != 2 {
		t.Fatalf("money %q is not two decimals", s)
	}
	v, err := strconv.ParseInt(w+f, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if neg {
		v = -v
	}
	return v
}

// TestGenerateInvariants checks the specification's rules on generated
// rows: cardinalities, column counts, keys, foreign keys, and the order
// columns derived from the line items.
func TestGenerateInvariants(t *testing.T) {
	dir := t.TempDir()
	const sf = 0.01 // 100 suppliers: the four suppliers of a part are distinct (at 20 some coincide)
	if err := Generate(dir, sf); err != nil {
		t.Fatal(err)
	}
	c := CountsFor(sf)
	tables := map[string][][]string{}
	for _, tb := range Tables {
		rows := readTable(t, dir, tb.Name)
		for i, r := range rows {
			if len(r) != len(tb.Columns) {
				t.Fatalf("%s row %d has %d fields, want %d", tb.Name, i+1, len(r), len(tb.Columns))
			}
		}
		tables[tb.Name] = rows
	}
	for name, want := range map[string]int64{"region": 5, "nation": 25, "supplier": c.Supplier, "customer": c.Customer, "part": c.Part, "orders": c.Orders} {
		if got := int64(len(tables[name])); got != want {
			t.Errorf("%s: %d rows, want %d", name, got, want)
		}
	}
	ps := map[string]bool{}
	for _, r := range tables["partsupp"] {
		ps[r[0]+"|"+r[1]] = true
	}
	if len(ps) != len(tables["partsupp"]) || len(ps) != 4*int(c.Part) {
		t.Errorf("partsupp: %d distinct keys of %d rows, want 4 per part (%d)", len(ps), len(tables["partsupp"]), 4*c.Part)
	}
	type agg struct {
		lines, f, o int
		total       int64
	}
	byOrder := map[string]*agg{}
	for _, l := range tables["lineitem"] {
		if !ps[l[1]+"|"+l[2]] {
			t.Fatalf("lineitem (%s, %s) is not a partsupp row", l[1], l[2])
		}
		a := byOrder[l[0]]
		if a == nil {
			a = &agg{}
			byOrder[l[0]] = a
		}
		a.lines++
		price, disc, tax := centsOf(t, l[5]), centsOf(t, l[6]), centsOf(t, l[7])
		a.total += price * (100 + tax) * (100 - disc)
		switch l[9] {
		case "F":
			a.f++
		case "O":
			a.o++
		}
		if ship, receipt := l[10], l[12]; !(ship < receipt) {
			t.Fatalf("lineitem of order %s received %s before shipping %s", l[0], receipt, ship)
		}
		if (l[8] == "N") != (l[12] > "1995-06-17") {
			t.Fatalf("return flag %s with receipt date %s", l[8], l[12])
		}
	}
	for _, o := range tables["orders"] {
		a := byOrder[o[0]]
		if a == nil || a.lines < 1 || a.lines > 7 {
			t.Fatalf("order %s has %v lines", o[0], a)
		}
		cust, _ := strconv.ParseInt(o[1], 10, 64)
		if cust%3 == 0 || cust < 1 || cust > c.Customer {
			t.Fatalf("order %s has customer %d", o[0], cust)
		}
		want := "P"
		if a.o == 0 {
			want = "F"
		} else if a.f == 0 {
			want = "O"
		}
		if o[2] != want {
			t.Fatalf("order %s status %s, want %s", o[0], o[2], want)
		}
		if got := centsOf(t, o[3]); got != (a.total+5000)/10000 {
			t.Fatalf("order %s total %d cents, want %d", o[0], got, (a.total+5000)/10000)
		}
	}
	complaints := 0
	for _, s := range tables["supplier"] {
		n, _ := strconv.Atoi(s[3])
		if n < 0 || n > 24 || !strings.HasPrefix(s[4], strconv.Itoa(n+10)+"-") {
			t.Fatalf("supplier %s: nation %s phone %s", s[0], s[3], s[4])
		}
		if i := strings.Index(s[6], "Customer "); i >= 0 && strings.Contains(s[6][i:], "Complaints") {
			complaints++
		}
	}
	if complaints == 0 {
		t.Error("no supplier comment has Customer …Complaints (TPC-H Q16 looks for them)")
	}
	// The same scale factor gives the same bytes.
	again := t.TempDir()
	if err := Generate(again, sf); err != nil {
		t.Fatal(err)
	}
	for _, tb := range Tables {
		a, _ := os.ReadFile(filepath.Join(dir, tb.Name+".tbl"))
		b, _ := os.ReadFile(filepath.Join(again, tb.Name+".tbl"))
		if string(a) != string(b) {
			t.Errorf("%s differs between two runs", tb.Name)
		}
	}
}
