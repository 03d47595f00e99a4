package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// dorisCase is one call of a function added for issue 15: want is what
// every row of testBatch gives (constant arguments), or, when rows is set,
// the three rows' values (arguments over the batch's columns).
type dorisCase struct {
	name string
	args []Expr
	want string
	rows []string
}

// dorisEval evaluates e over testBatch and renders each row (NULL as NULL).
func dorisEval(t *testing.T, e Expr) ([]string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := testBatch(mem)
	defer b.Release()
	env := &Env{Mem: mem, Now: time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)}
	a, err := e.Eval(env, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if a.Len() != 3 {
		t.Fatalf("%s: %d rows", e, a.Len())
	}
	if !arrow.TypeEqual(a.DataType(), e.DataType()) {
		t.Fatalf("%s: array type %s, expr type %s", e, a.DataType(), e.DataType())
	}
	out := make([]string, 3)
	for i := range out {
		out[i] = render.String(a, i)
	}
	return out, nil
}

func runDorisCases(t *testing.T, cases []dorisCase) {
	t.Helper()
	for _, c := range cases {
		e, err := Func(c.name, c.args...)
		if err != nil {
			t.Errorf("%s%v: bind: %v", c.name, c.args, err)
			continue
		}
		got, err := dorisEval(t, e)
		if err != nil {
			t.Errorf("%s: eval: %v", e, err)
			continue
		}
		want := c.rows
		if want == nil {
			want = []string{c.want, c.want, c.want}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s = %q, want %q", e, got, want)
		}
	}
}

// errCase is a call that must fail (at bind or evaluation) with an error of
// kind and a text naming the function.
type errCase struct {
	name string
	args []Expr
	kind error
}

func runErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		e, err := Func(c.name, c.args...)
		if err == nil {
			_, err = dorisEval(t, e)
		}
		if err == nil || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s%v: got error %v, want %v naming the function", c.name, c.args, err, c.kind)
		}
	}
}

func nullS() Expr { return Null(StringT()) }

// TestDorisNullInNullOut: every function added for issue 15 gives NULL for
// NULL arguments, except those Doris defines otherwise (quote gives the
// word NULL; field gives 0; char skips NULLs; json_array/json_object make
// JSON null; json_parse_error_to_value and uuid/rand take no NULL input).
func TestDorisNullInNullOut(t *testing.T) {
	n := func(k int) []Expr {
		out := make([]Expr, k)
		for i := range out {
			out[i] = Null(NullT()) // SQL's bare NULL
		}
		return out
	}
	for _, c := range []struct {
		name  string
		arity int
		want  string
	}{
		{"json_parse", 1, "NULL"}, {"json_parse_error_to_null", 1, "NULL"}, {"json_valid", 1, "NULL"}, {"json_type", 2, "NULL"},
		{"json_length", 1, "NULL"}, {"json_keys", 1, "NULL"}, {"json_contains", 2, "NULL"}, {"json_exists_path", 2, "NULL"},
		{"json_extract", 2, "NULL"}, {"json_extract", 3, "NULL"}, {"json_extract_string", 2, "NULL"}, {"json_extract_int", 2, "NULL"},
		{"json_extract_bigint", 2, "NULL"}, {"json_extract_largeint", 2, "NULL"}, {"json_extract_double", 2, "NULL"},
		{"json_extract_bool", 2, "NULL"}, {"json_extract_isnull", 2, "NULL"}, {"get_json_string", 2, "NULL"}, {"get_json_int", 2, "NULL"},
		{"get_json_bigint", 2, "NULL"}, {"get_json_double", 2, "NULL"}, {"json_quote", 1, "NULL"}, {"json_unquote", 1, "NULL"},
		{"json_insert", 3, "NULL"}, {"json_replace", 3, "NULL"}, {"json_set", 3, "NULL"}, {"json_search", 3, "NULL"},
		{"json_array", 2, "[null,null]"}, {"json_parse_error_to_value", 1, "NULL"},
		{"date_floor", 3, "NULL"}, {"second_floor", 1, "NULL"}, {"minute_ceil", 2, "NULL"}, {"hour_floor", 3, "NULL"}, {"day_ceil", 1, "NULL"},
		{"week_floor", 1, "NULL"}, {"month_ceil", 2, "NULL"}, {"quarter_floor", 1, "NULL"}, {"year_ceil", 3, "NULL"},
		{"convert_tz", 3, "NULL"}, {"from_second", 1, "NULL"}, {"from_millisecond", 1, "NULL"}, {"from_microsecond", 1, "NULL"},
		{"second_timestamp", 1, "NULL"}, {"millisecond_timestamp", 1, "NULL"}, {"microsecond_timestamp", 1, "NULL"},
		{"microseconds_add", 2, "NULL"}, {"microseconds_sub", 2, "NULL"}, {"milliseconds_add", 2, "NULL"}, {"milliseconds_sub", 2, "NULL"},
		{"milliseconds_diff", 2, "NULL"}, {"to_monday", 1, "NULL"}, {"time_to_sec", 1, "NULL"}, {"sec_to_time", 1, "NULL"},
		{"timediff", 2, "NULL"}, {"to_iso8601", 1, "NULL"}, {"from_iso8601_date", 1, "NULL"}, {"timestamp", 1, "NULL"}, {"timestamp", 2, "NULL"},
		{"regexp_replace", 3, "NULL"}, {"regexp_replace_one", 3, "NULL"}, {"regexp_extract_all", 2, "NULL"}, {"regexp_extract_or_null", 3, "NULL"},
		{"char", 2, ""}, {"format_number", 1, "NULL"}, {"money_format", 1, "NULL"}, {"soundex", 1, "NULL"}, {"levenshtein", 2, "NULL"},
		{"overlay", 4, "NULL"}, {"sub_replace", 3, "NULL"}, {"count_substrings", 2, "NULL"}, {"trim_in", 2, "NULL"}, {"ltrim_in", 1, "NULL"},
		{"rtrim_in", 2, "NULL"}, {"replace_empty", 3, "NULL"}, {"append_trailing_char_if_absent", 2, "NULL"}, {"parse_url", 2, "NULL"},
		{"parse_url", 3, "NULL"}, {"extract_url_parameter", 2, "NULL"}, {"url_encode", 1, "NULL"}, {"url_decode", 1, "NULL"},
		{"protocol", 1, "NULL"}, {"domain", 1, "NULL"}, {"domain_without_www", 1, "NULL"}, {"top_level_domain", 1, "NULL"},
		{"quote", 1, "NULL"}, {"field", 3, "0"}, {"split_by_string", 2, "NULL"}, {"split_by_regexp", 2, "NULL"},
		{"digital_masking", 1, "NULL"}, {"compress", 1, "NULL"}, {"uncompress", 1, "NULL"},
		{"bin", 1, "NULL"}, {"conv", 3, "NULL"}, {"round_bankers", 1, "NULL"}, {"width_bucket", 4, "NULL"}, {"normal_cdf", 3, "NULL"},
		{"bit_shift_left", 2, "NULL"}, {"bit_shift_right", 2, "NULL"}, {"murmur_hash3_32", 2, "NULL"}, {"murmur_hash3_64", 1, "NULL"},
		{"xxhash_32", 1, "NULL"}, {"xxhash_64", 2, "NULL"}, {"rand", 1, "NULL"},
	} {
		args := n(c.arity)
		if c.name == "date_floor" {
			args[2] = Str("DAY") // the unit is a keyword, never NULL
		}
		runDorisCases(t, []dorisCase{{name: c.name, args: args, want: c.want}})
	}
}
