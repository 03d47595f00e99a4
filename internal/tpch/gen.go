package tpch

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Table is one TPC-H table: its columns as Doris DDL and its key columns.
type Table struct {
	Name    string
	Columns [][2]string // name, Doris type
	Key     []string    // DUPLICATE KEY prefix and distribution column first
}

// Tables lists the eight tables in load order.
var Tables = []Table{
	{"region", [][2]string{{"r_regionkey", "INT"}, {"r_name", "VARCHAR(25)"}, {"r_comment", "VARCHAR(152)"}}, []string{"r_regionkey"}},
	{"nation", [][2]string{{"n_nationkey", "INT"}, {"n_name", "VARCHAR(25)"}, {"n_regionkey", "INT"}, {"n_comment", "VARCHAR(152)"}}, []string{"n_nationkey"}},
	{"supplier", [][2]string{{"s_suppkey", "INT"}, {"s_name", "VARCHAR(25)"}, {"s_address", "VARCHAR(40)"}, {"s_nationkey", "INT"},
		{"s_phone", "VARCHAR(15)"}, {"s_acctbal", "DECIMAL(15,2)"}, {"s_comment", "VARCHAR(101)"}}, []string{"s_suppkey"}},
	{"customer", [][2]string{{"c_custkey", "INT"}, {"c_name", "VARCHAR(25)"}, {"c_address", "VARCHAR(40)"}, {"c_nationkey", "INT"},
		{"c_phone", "VARCHAR(15)"}, {"c_acctbal", "DECIMAL(15,2)"}, {"c_mktsegment", "VARCHAR(10)"}, {"c_comment", "VARCHAR(117)"}}, []string{"c_custkey"}},
	{"part", [][2]string{{"p_partkey", "INT"}, {"p_name", "VARCHAR(55)"}, {"p_mfgr", "VARCHAR(25)"}, {"p_brand", "VARCHAR(10)"},
		{"p_type", "VARCHAR(25)"}, {"p_size", "INT"}, {"p_container", "VARCHAR(10)"}, {"p_retailprice", "DECIMAL(15,2)"}, {"p_comment", "VARCHAR(23)"}}, []string{"p_partkey"}},
	{"partsupp", [][2]string{{"ps_partkey", "INT"}, {"ps_suppkey", "INT"}, {"ps_availqty", "INT"}, {"ps_supplycost", "DECIMAL(15,2)"},
		{"ps_comment", "VARCHAR(199)"}}, []string{"ps_partkey", "ps_suppkey"}},
	{"orders", [][2]string{{"o_orderkey", "BIGINT"}, {"o_custkey", "INT"}, {"o_orderstatus", "VARCHAR(1)"}, {"o_totalprice", "DECIMAL(15,2)"},
		{"o_orderdate", "DATE"}, {"o_orderpriority", "VARCHAR(15)"}, {"o_clerk", "VARCHAR(15)"}, {"o_shippriority", "INT"}, {"o_comment", "VARCHAR(79)"}}, []string{"o_orderkey"}},
	{"lineitem", [][2]string{{"l_orderkey", "BIGINT"}, {"l_partkey", "INT"}, {"l_suppkey", "INT"}, {"l_linenumber", "INT"},
		{"l_quantity", "DECIMAL(15,2)"}, {"l_extendedprice", "DECIMAL(15,2)"}, {"l_discount", "DECIMAL(15,2)"}, {"l_tax", "DECIMAL(15,2)"},
		{"l_returnflag", "VARCHAR(1)"}, {"l_linestatus", "VARCHAR(1)"}, {"l_shipdate", "DATE"}, {"l_commitdate", "DATE"}, {"l_receiptdate", "DATE"},
		{"l_shipinstruct", "VARCHAR(25)"}, {"l_shipmode", "VARCHAR(10)"}, {"l_comment", "VARCHAR(44)"}}, []string{"l_orderkey"}},
}

// Counts are the row counts of the scaled tables at scale factor sf
// (clause 4.2.5); lineitem has 1 to 7 rows per order.
type Counts struct{ Supplier, Part, Customer, Orders int64 }

// CountsFor scales the base cardinalities, at least one row each.
func CountsFor(sf float64) Counts {
	n := func(base float64) int64 { return max(1, int64(base*sf+0.5)) }
	return Counts{Supplier: n(10_000), Part: n(200_000), Customer: n(150_000), Orders: n(1_500_000)}
}

// Dates of clause 4.2.2.12.
var (
	startDate   = civil(1992, 1, 1)
	currentDate = civil(1995, 6, 17)
	endDate     = civil(1998, 12, 31)
)

func civil(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func dateText(days int) string { return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02") }

// Generate writes every table as DIR/<name>.tbl: '|'-separated fields, one
// row a line, no trailing separator.
func Generate(dir string, sf float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := newGen(sf)
	for _, t := range []struct {
		name string
		fn   func(w *bufio.Writer)
	}{
		{"region", g.region}, {"nation", g.nation}, {"supplier", g.supplier}, {"customer", g.customer},
		{"part", g.part}, {"partsupp", g.partsupp},
	} {
		if err := writeFile(filepath.Join(dir, t.name+".tbl"), t.fn); err != nil {
			return err
		}
	}
	// Orders and lineitem come from one stream: an order's status and total
	// are derived from its lines.
	of, err := os.Create(filepath.Join(dir, "orders.tbl"))
	if err != nil {
		return err
	}
	defer of.Close()
	lf, err := os.Create(filepath.Join(dir, "lineitem.tbl"))
	if err != nil {
		return err
	}
	defer lf.Close()
	ow, lw := bufio.NewWriterSize(of, 1<<20), bufio.NewWriterSize(lf, 1<<20)
	g.orders(ow, lw)
	if err := ow.Flush(); err != nil {
		return err
	}
	if err := lw.Flush(); err != nil {
		return err
	}
	if err := of.Close(); err != nil {
		return err
	}
	return lf.Close()
}

func writeFile(path string, fn func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	fn(w)
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

type gen struct {
	c Counts
}

func newGen(sf float64) *gen { return &gen{c: CountsFor(sf)} }

// stream is one table's random numbers.
type stream struct{ r *rand.Rand }

func newStream(seed uint64) *stream { return &stream{rand.New(rand.NewPCG(seed, 0x7463_7068))} }

// between is uniform in [lo, hi].
func (s *stream) between(lo, hi int64) int64 { return lo + s.r.Int64N(hi-lo+1) }

func (s *stream) pick(list []string) string { return list[s.r.IntN(len(list))] }

// money is a uniform amount in [lo, hi] cents, as text with two decimals.
func (s *stream) money(lo, hi int64) string { return cents(s.between(lo, hi)) }

func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// vstring is a random alphanumeric string with a length uniform in
// [lo, hi] (clause 4.2.2.7, "v-string").
func (s *stream) vstring(lo, hi int) string {
	const chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ."
	n := int(s.between(int64(lo), int64(hi)))
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[s.r.IntN(len(chars))]
	}
	return string(b)
}

// phone is clause 4.2.2.9: country code nationkey+10, then three random
// groups.
func (s *stream) phone(nation int64) string {
	return fmt.Sprintf("%d-%03d-%03d-%04d", nation+10, s.between(100, 999), s.between(100, 999), s.between(1000, 9999))
}

// text is a string of sentences from the grammar's vocabulary (clause
// 4.2.2.10), cut to a length uniform in [lo, hi].
func (s *stream) text(lo, hi int) string {
	n := int(s.between(int64(lo), int64(hi)))
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		s.sentence(&b)
	}
	return strings.TrimSpace(b.String()[:n])
}

func (s *stream) sentence(b *strings.Builder) {
	noun := func() {
		if s.r.IntN(2) == 0 {
			b.WriteString(s.pick(adjectives) + " ")
		}
		b.WriteString(s.pick(nouns))
	}
	verb := func() {
		if s.r.IntN(3) == 0 {
			b.WriteString(s.pick(auxiliaries) + " ")
		}
		b.WriteString(s.pick(verbs))
		if s.r.IntN(2) == 0 {
			b.WriteString(" " + s.pick(adverbs))
		}
	}
	noun()
	b.WriteByte(' ')
	verb()
	if s.r.IntN(2) == 0 {
		b.WriteString(" " + s.pick(prepositions) + " the ")
		noun()
	}
	b.WriteString(s.pick(terminators))
}

func field(w *bufio.Writer, vals ...string) {
	for i, v := range vals {
		if i > 0 {
			w.WriteByte('|')
		}
		w.WriteString(v)
	}
	w.WriteByte('\n')
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func (g *gen) region(w *bufio.Writer) {
	s := newStream(1)
	for i, r := range regions {
		field(w, itoa(int64(i)), r, s.text(31, 115))
	}
}

func (g *gen) nation(w *bufio.Writer) {
	s := newStream(2)
	for i, n := range nations {
		field(w, itoa(int64(i)), n.name, itoa(int64(n.region)), s.text(31, 114))
	}
}

func (g *gen) supplier(w *bufio.Writer) {
	s := newStream(3)
	S := g.c.Supplier
	// Clause 4.2.3: SF*5 comments carry "Customer ...Complaints" and
	// another SF*5 "Customer ...Recommends" (Q16 looks for the first).
	special := max(1, S/2000)
	complaints := map[int64]bool{}
	recommends := map[int64]bool{}
	pickRows := newStream(33)
	for len(complaints) < int(special) && len(complaints) < int(S) {
		complaints[pickRows.between(1, S)] = true
	}
	for len(recommends) < int(special) && len(complaints)+len(recommends) < int(S) {
		if k := pickRows.between(1, S); !complaints[k] {
			recommends[k] = true
		}
	}
	for k := int64(1); k <= S; k++ {
		nation := s.between(0, 24)
		comment := s.text(25, 100)
		switch {
		case complaints[k]:
			comment = embed(s, comment, "Customer ", "Complaints")
		case recommends[k]:
			comment = embed(s, comment, "Customer ", "Recommends")
		}
		field(w, itoa(k), fmt.Sprintf("Supplier#%09d", k), s.vstring(10, 40), itoa(nation), s.phone(nation), s.money(-99999, 999999), comment)
	}
}

// embed puts first, some of the text, then second into a comment of the
// same length.
func embed(s *stream, text, first, second string) string {
	room := len(text) - len(first) - len(second)
	if room < 0 {
		return first + second
	}
	mid := text[:s.r.IntN(room+1)]
	out := first + mid + second
	return out + text[len(out):]
}

func (g *gen) customer(w *bufio.Writer) {
	s := newStream(4)
	for k := int64(1); k <= g.c.Customer; k++ {
		nation := s.between(0, 24)
		field(w, itoa(k), fmt.Sprintf("Customer#%09d", k), s.vstring(10, 40), itoa(nation), s.phone(nation),
			s.money(-99999, 999999), s.pick(segments), s.text(29, 116))
	}
}

// retailPrice is clause 4.2.3's P_RETAILPRICE in cents.
func retailPrice(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}

func (g *gen) part(w *bufio.Writer) {
	s := newStream(5)
	for k := int64(1); k <= g.c.Part; k++ {
		names := make([]string, 0, 5)
		for len(names) < 5 {
			c := s.pick(colors)
			dup := false
			for _, n := range names {
				dup = dup || n == c
			}
			if !dup {
				names = append(names, c)
			}
		}
		m := s.between(1, 5)
		field(w, itoa(k), strings.Join(names, " "), fmt.Sprintf("Manufacturer#%d", m), fmt.Sprintf("Brand#%d%d", m, s.between(1, 5)),
			s.pick(typeS1)+" "+s.pick(typeS2)+" "+s.pick(typeS3), itoa(s.between(1, 50)), s.pick(containerS1)+" "+s.pick(containerS2),
			cents(retailPrice(k)), s.text(5, 22))
	}
}

// suppFor is clause 4.2.3's supplier of the i-th (0..3) partsupp row of a
// part.
func (g *gen) suppFor(partkey, i int64) int64 {
	S := g.c.Supplier
	return (partkey+(i*(S/4+(partkey-1)/S)))%S + 1
}

func (g *gen) partsupp(w *bufio.Writer) {
	s := newStream(6)
	for k := int64(1); k <= g.c.Part; k++ {
		seen := map[int64]bool{}
		for i := int64(0); i < 4; i++ {
			supp := g.suppFor(k, i)
			if seen[supp] {
				continue // tiny scale factors: fewer than 4 distinct suppliers
			}
			seen[supp] = true
			field(w, itoa(k), itoa(supp), itoa(s.between(1, 9999)), s.money(100, 100000), s.text(49, 198))
		}
	}
}

// orderKey spreads order keys as the specification does: only the first 8
// of every 32 keys are used.
func orderKey(i int64) int64 { return (i-1)/8*32 + (i-1)%8 + 1 }

func (g *gen) orders(ow, lw *bufio.Writer) {
	s := newStream(7)
	ls := newStream(8)
	clerks := max(1, g.c.Supplier/10) // SF * 1000
	for i := int64(1); i <= g.c.Orders; i++ {
		key := orderKey(i)
		cust := s.between(1, g.c.Customer)
		for cust%3 == 0 && g.c.Customer > 2 {
			cust = s.between(1, g.c.Customer)
		}
		odate := int(s.between(int64(startDate), int64(endDate-151)))
		priority := s.pick(priorities)
		clerk := fmt.Sprintf("Clerk#%09d", s.between(1, clerks))
		comment := s.text(19, 78)
		n := int(ls.between(1, 7))
		var total int64 // in 1/1e6 of a cent: price * (1+tax) * (1-discount)
		var fcount, ocount int
		lines := make([]string, 0, n)
		for ln := 1; ln <= n; ln++ {
			part := ls.between(1, g.c.Part)
			supp := g.suppFor(part, ls.between(0, 3))
			qty := ls.between(1, 50)
			price := qty * retailPrice(part)
			disc := ls.between(0, 10)
			tax := ls.between(0, 8)
			ship := odate + int(ls.between(1, 121))
			commit := odate + int(ls.between(30, 90))
			receipt := ship + int(ls.between(1, 30))
			flag := "N"
			if receipt <= currentDate {
				flag = ls.pick([]string{"R", "A"})
			}
			status := "O"
			if ship <= currentDate {
				status = "F"
				fcount++
			} else {
				ocount++
			}
			total += price * (100 + tax) * (100 - disc)
			lines = append(lines, strings.Join([]string{itoa(key), itoa(part), itoa(supp), itoa(int64(ln)), itoa(qty) + ".00",
				cents(price), cents(disc), cents(tax), flag, status, dateText(ship), dateText(commit), dateText(receipt),
				ls.pick(instructions), ls.pick(modes), ls.text(10, 43)}, "|"))
		}
		ostatus := "P"
		switch {
		case ocount == 0:
			ostatus = "F"
		case fcount == 0:
			ostatus = "O"
		}
		// total is in cents * 10^4; round to cents.
		field(ow, itoa(key), itoa(cust), ostatus, cents((total+5000)/10000), dateText(odate), priority, clerk, "0", comment)
		for _, l := range lines {
			io.WriteString(lw, l)
			lw.WriteByte('\n')
		}
	}
}
