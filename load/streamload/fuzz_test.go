package streamload

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"
)

var fuzzHeaders = []http.Header{
	{},
	{"Column_separator": {`\x01`}, "Line_delimiter": {`\x02`}, "Enclose": {`"`}, "Escape": {`\`}},
	{"Column_separator": {"||"}, "Line_delimiter": {`\r\n`}, "Trim_double_quotes": {"true"}},
	{"Format": {"json"}, "Strip_outer_array": {"true"}},
	{"Format": {"json"}, "Read_json_by_line": {"true"}},
	{"Format": {"json"}, "Jsonpaths": {`["$.a", "$.b.c"]`}},
}

// drain decodes everything; the decoder must end (EOF or an error) within
// a bound set by the body's length, and never panic.
func drain(t *testing.T, d decoder, n int) {
	for i := 0; i <= n+2; i++ {
		vals, nulls, err := d.next()
		if err == io.EOF {
			return
		}
		var re *rowError
		if err != nil && !errors.As(err, &re) {
			return
		}
		if err == nil && len(vals) != len(nulls) {
			t.Fatalf("%d values, %d null flags", len(vals), len(nulls))
		}
	}
	t.Fatalf("decoder returned more than %d rows for %d bytes", n+2, n)
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"1\ta\n2\tb", "7\x01\"acme\x01co\"\x01\\N\x02", "\"a\"||b\r\n", `[{"a":1,"b":{"c":"x"}},{"a":null}]`,
		"{\"a\":\"\\u00e9\\ud83d\\ude00\"}\n{\"a\":[1,{\"b\":2}]}\n", `{"a":"unterminated`, "[[[[[", "{\"a\":1e999}",
	} {
		for i := range fuzzHeaders {
			f.Add(uint8(i), []byte(s))
		}
	}
}

func FuzzCSV(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, sel uint8, body []byte) {
		p, err := ParseParams(fuzzHeaders[int(sel)%3])
		if err != nil {
			t.Fatal(err)
		}
		drain(t, newCSVReader(bytes.NewReader(body), &p, 64), len(body))
	})
}

func FuzzJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, sel uint8, body []byte) {
		p, err := ParseParams(fuzzHeaders[3+int(sel)%3])
		if err != nil {
			t.Fatal(err)
		}
		drain(t, newJSONReader(bytes.NewReader(body), &p, []string{"a", "b"}, 256), len(body))
	})
}
