// Package paimontest loads the EXPECTED.json answer files of the shared
// Paimon fixtures and compares result rows with them, for tests of
// lake/paimon and cmd/paimon-cat. It is test support, not product code.
package paimontest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Column of an EXPECTED.json file.
type Column struct {
	ID   int             `json:"id"`
	Name string          `json:"name"`
	Type paimon.DataType `json:"type"`
}

// Read is one entry of "reads".
type Read struct {
	Name               string              `json:"name"`
	Snapshot           int64               `json:"snapshot"`
	IsLatest           bool                `json:"is_latest"`
	Columns            []string            `json:"columns"`
	PartitionFilter    []map[string]string `json:"partition_filter"`
	BucketFilter       *int32              `json:"bucket_filter"`
	Predicate          *paimon.Predicate   `json:"predicate"`
	PredicateSemantics string              `json:"predicate_semantics"`
	Limit              *int                `json:"limit"`
	Splits             *int                `json:"splits"`
	ReadOptions        map[string]string   `json:"read_options"`
	RowCount           int                 `json:"row_count"`
	Rows               [][]any             `json:"rows"`
}

// Expected is one EXPECTED.json.
type Expected struct {
	Fixture        string   `json:"fixture"`
	TableDir       string   `json:"table_dir"`
	FileFormat     string   `json:"file_format"`
	ManifestFormat string   `json:"manifest_format"`
	Columns        []Column `json:"columns"`
	Reads          []Read   `json:"reads"`

	Root string `json:"-"` // the fixtures/paimon directory
}

// TablePath is the absolute table directory.
func (e *Expected) TablePath() string { return filepath.Join(e.Root, e.TableDir) }

// Fields are the columns as Paimon fields.
func (e *Expected) Fields() ([]paimon.DataField, error) {
	out := make([]paimon.DataField, len(e.Columns))
	for i, c := range e.Columns {
		out[i] = paimon.DataField{ID: c.ID, Name: c.Name, Type: c.Type}
	}
	return out, nil
}

// LoadAll finds every EXPECTED.json under root (fixtures/paimon).
func LoadAll(root string) ([]*Expected, error) {
	paths, err := filepath.Glob(filepath.Join(root, "*", "*.db", "EXPECTED.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no EXPECTED.json under %s", root)
	}
	var out []*Expected
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		e := &Expected{Root: root}
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		if err := d.Decode(e); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Exact reports whether the entry's predicate filters rows exactly.
func (r *Read) Exact() bool {
	return r.Predicate == nil || strings.HasPrefix(r.PredicateSemantics, "exact")
}

// Check compares got (rows in r.Columns order, values as JSONValue or
// decoded JSON) with the expectation, as multisets. For pruning-only
// entries the expectation is the subset of the fixture's rows that satisfy
// the predicate, evaluated by Filter (not by the library); got must be
// exactly that subset, since the library filters rows exactly; limit entries require the
// expected rows to be contained in got and got to hold at least limit rows.
func Check(e *Expected, r *Read, got [][]any) error {
	fields, err := e.Fields()
	if err != nil {
		return err
	}
	types := make([]paimon.DataType, len(r.Columns))
	for i, c := range r.Columns {
		found := false
		for _, f := range fields {
			if f.Name == c {
				types[i], found = f.Type, true
			}
		}
		if !found {
			return fmt.Errorf("unknown column %s", c)
		}
	}
	want := r.Rows
	if !r.Exact() {
		if want, err = Filter(r, want); err != nil {
			return err
		}
	}
	cw, cg := canonRows(want, types), canonRows(got, types)
	if r.Limit != nil {
		if len(cg) < min(*r.Limit, len(cw)) {
			return fmt.Errorf("limit %d: got %d rows", *r.Limit, len(cg))
		}
		if missing := subtract(cw, cg); len(missing) > 0 {
			return fmt.Errorf("limit read: expected rows missing from the full read: %v", missing)
		}
		return nil
	}
	if strings.Join(cw, "\n") != strings.Join(cg, "\n") {
		return fmt.Errorf("rows differ\nwant (%d):\n  %s\ngot (%d):\n  %s", len(cw), strings.Join(cw, "\n  "), len(cg), strings.Join(cg, "\n  "))
	}
	return nil
}

func subtract(want, got []string) []string {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	var missing []string
	for _, w := range want {
		if have[w] == 0 {
			missing = append(missing, w)
			continue
		}
		have[w]--
	}
	return missing
}

func canonRows(rows [][]any, types []paimon.DataType) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, v := range r {
			if j < len(types) {
				cells[j] = canon(v, types[j])
			} else {
				cells[j] = fmt.Sprint(v)
			}
		}
		out[i] = "[" + strings.Join(cells, ", ") + "]"
	}
	sort.Strings(out)
	return out
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// canon renders one value canonically for its Paimon type.
func canon(v any, t paimon.DataType) string {
	if v == nil {
		return "null"
	}
	switch t.Root {
	case paimon.Float:
		if f, ok := num(v); ok {
			return strconv.FormatFloat(float64(float32(f)), 'g', -1, 32)
		}
	case paimon.Double, paimon.TinyInt, paimon.SmallInt, paimon.Int, paimon.BigInt, paimon.Date, paimon.Time:
		if f, ok := num(v); ok {
			if math.IsNaN(f) {
				return "NaN"
			}
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	case paimon.Timestamp, paimon.TimestampLTZ:
		if s, ok := v.(string); ok {
			for _, l := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
				if tm, err := time.Parse(l, s); err == nil {
					return tm.Format("2006-01-02 15:04:05.000000000")
				}
			}
		}
	case paimon.Array, paimon.Multiset:
		if l, ok := v.([]any); ok {
			parts := make([]string, len(l))
			for i, x := range l {
				parts[i] = canon(x, *t.Element)
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
	case paimon.Map:
		if l, ok := v.([]any); ok {
			parts := make([]string, len(l))
			for i, x := range l {
				kv, ok := x.([]any)
				if !ok || len(kv) != 2 {
					return fmt.Sprintf("badmap%v", v)
				}
				parts[i] = canon(kv[0], *t.Key) + ":" + canon(kv[1], *t.Value)
			}
			sort.Strings(parts)
			return "{" + strings.Join(parts, ",") + "}"
		}
	case paimon.Row:
		if l, ok := v.([]any); ok && len(l) == len(t.Fields) {
			parts := make([]string, len(l))
			for i, x := range l {
				parts[i] = canon(x, t.Fields[i].Type)
			}
			return "(" + strings.Join(parts, ",") + ")"
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
