package streamload

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

const null = "∅"

// rows decodes a whole body into rows of values (null for NULL) and the
// messages of bad rows.
func rows(t *testing.T, d decoder) (out [][]string, bad []string, err error) {
	t.Helper()
	for i := 0; i < 10000; i++ {
		vals, nulls, err := d.next()
		if err == io.EOF {
			return out, bad, nil
		}
		var re *rowError
		if errors.As(err, &re) {
			bad = append(bad, re.msg)
			continue
		}
		if err != nil {
			return out, bad, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			if nulls[i] {
				row[i] = null
			} else {
				row[i] = string(v)
			}
		}
		out = append(out, row)
	}
	t.Fatal("decoder does not end")
	return
}

func params(t *testing.T, kv ...string) Params {
	t.Helper()
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	p, err := ParseParams(h)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCSV(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		body    string
		want    [][]string
	}{
		{"defaults", nil, "1\ta\tx\n2\tb\ty\n", [][]string{{"1", "a", "x"}, {"2", "b", "y"}}},
		{"no final delimiter, empty lines skipped", nil, "1\ta\n\n2\tb", [][]string{{"1", "a"}, {"2", "b"}}},
		{"null and empty", nil, "\\N\t\t\\N\n", [][]string{{null, "", null}}},
		{"multi-byte", []string{"column_separator", "||", "line_delimiter", "\\r\\n"}, "1||a|b||c\r\n2||||\r\n",
			[][]string{{"1", "a|b", "c"}, {"2", "", ""}}},
		{"hex seed form", []string{"column_separator", `\x01`, "line_delimiter", `\x02`, "enclose", `"`, "escape", `\`},
			"7\x01\"acme\x01co\x02\"\x0142.5\x02" + "8\x01\"say \\\"hi\\\" \\\\ \"\x01\\N\x02" + "9\x01\"\\\\N\"\x01\"\"\x02",
			[][]string{{"7", "acme\x01co\x02", "42.5"}, {"8", `say "hi" \ `, null}, {"9", `\N`, ""}}},
		{"trim double quotes", []string{"column_separator", ",", "trim_double_quotes", "true"}, "\"a\",b,\"\"\n",
			[][]string{{"a", "b", ""}}},
		{"enclosed with separator after junk", []string{"column_separator", ",", "enclose", "'"}, "'a,b'x,c\n",
			[][]string{{"a,bx", "c"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := params(t, tc.headers...)
			for _, r := range []io.Reader{strings.NewReader(tc.body), iotest.OneByteReader(strings.NewReader(tc.body))} {
				got, bad, err := rows(t, newCSVReader(r, &p, 1<<20))
				if err != nil || bad != nil {
					t.Fatalf("err %v, bad %v", err, bad)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got  %q\nwant %q", got, tc.want)
				}
			}
		})
	}
}

func TestCSVRowTooLong(t *testing.T) {
	p := params(t)
	body := "1\tshort\n2\t" + strings.Repeat("x", 5000) + "\n"
	_, _, err := rows(t, newCSVReader(strings.NewReader(body), &p, 4096))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "byte 8") {
		t.Fatalf("want ErrTooLarge naming byte 8, got %v", err)
	}
}

func TestJSON(t *testing.T) {
	src := []string{"id", "tenant", "total"}
	tests := []struct {
		name    string
		headers []string
		body    string
		want    [][]string
		bad     []string
		err     string
	}{
		{"array", []string{"strip_outer_array", "true"},
			`[{"id":7,"tenant":"acme","total":42.5},{"id":8,"tenant":"acme","total":9.0}]`,
			[][]string{{"7", "acme", "42.5"}, {"8", "acme", "9.0"}}, nil, ""},
		{"one object, missing key and null", nil, ` {"ID": 1, "total": null} `, [][]string{{"1", null, null}}, nil, ""},
		{"by line", []string{"read_json_by_line", "true"},
			"{\"id\":1,\"tenant\":\"a\\\"b\\u00e9\\n\"}\n{\"id\":2,\"tenant\":{\"x\":[1,2]}}\n",
			[][]string{{"1", "a\"bé\n", null}, {"2", `{"x":[1,2]}`, null}}, nil, ""},
		{"bad lines are bad rows", []string{"read_json_by_line", "true"},
			"{\"id\":1}\n{\"id\":2,\"colour\":\"red\"}\nnot json\n{\"id\":3,}\n{\"id\":4}\n",
			[][]string{{"1", null, null}, {"4", null, null}},
			[]string{`unknown JSON key "colour": no such column`, `line is not a JSON object (starts with 'n')`,
				`invalid JSON: a key expected at offset 8 of the object, got '}'`}, ""},
		{"array without strip_outer_array", nil, `[{"id":1}]`, nil, nil, "strip_outer_array"},
		{"unclosed array", []string{"strip_outer_array", "true"}, `[{"id":1}`, [][]string{{"1", null, null}}, nil, "not closed"},
		{"garbage between elements", []string{"strip_outer_array", "true"}, `[{"id":1} {"id":2}]`, [][]string{{"1", null, null}}, nil, "want ',' or ']'"},
		{"jsonpaths", []string{"jsonpaths", `["$.k", "$.u.name", "$.v"]`},
			`{"k": 5, "u": {"name": "ann", "age": 3}, "extra": true}`, [][]string{{"5", "ann", null}}, nil, ""},
		{"bad number", nil, `{"id": 1e}`, nil, []string{`invalid JSON number "1e"`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := params(t, tc.headers...)
			for _, r := range []io.Reader{strings.NewReader(tc.body), iotest.OneByteReader(strings.NewReader(tc.body))} {
				got, bad, err := rows(t, newJSONReader(r, &p, src, 1<<20))
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrFormat) {
						t.Fatalf("want ErrFormat with %q, got %v", tc.err, err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(bad, tc.bad) {
					t.Fatalf("got  %q bad %q\nwant %q bad %q", got, bad, tc.want, tc.bad)
				}
			}
		})
	}
}

func TestParams(t *testing.T) {
	bad := []struct{ k, v, want string }{
		{"format", "parquet", "format"},
		{"max_filter_ratio", "1.5", "max_filter_ratio"},
		{"max_filter_ratio", "abc", "max_filter_ratio"},
		{"strict_mode", "yes", "strict_mode"},
		{"column_separator", `\xZZ`, "column_separator"},
		{"line_delimiter", "", "line_delimiter"},
		{"enclose", "ab", "enclose"},
		{"timeout", "0", "timeout"},
		{"label", "a b", "label"},
		{"label", strings.Repeat("x", 129), "label"},
		{"jsonpaths", `["id"]`, "jsonpaths"},
	}
	for _, tc := range bad {
		h := http.Header{}
		h.Set(tc.k, tc.v)
		_, err := ParseParams(h)
		if !errors.Is(err, ErrBadHeader) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: want ErrBadHeader naming %s, got %v", tc.k, tc.v, tc.want, err)
		}
	}
	p := params(t, "column_separator", `\x0102`, "line_delimiter", `\n`, "format", "JSON", "strip_outer_array", "TRUE", "timeout", "30")
	if string(p.ColumnSeparator) != "\x01\x02" || string(p.LineDelimiter) != "\n" || p.Format != JSON || !p.StripOuterArray || p.Timeout.Seconds() != 30 {
		t.Fatalf("parsed %+v", p)
	}
	h := http.Header{}
	h.Set("column_separator", ",")
	h.Set("line_delimiter", ",")
	if _, err := ParseParams(h); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("overlapping separators: %v", err)
	}
}
