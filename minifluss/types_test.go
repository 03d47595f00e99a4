package minifluss

import "testing"

func TestParseSQLType(t *testing.T) {
	for _, tc := range []struct{ in, json string }{
		{"BIGINT NOT NULL", `{"type":"BIGINT","nullable":false}`},
		{"int", `{"type":"INTEGER"}`},
		{"DECIMAL(20, 2)", `{"type":"DECIMAL","precision":20,"scale":2}`},
		{"STRING", `{"type":"STRING"}`},
		{"TIMESTAMP(3)", `{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":3}`},
		{"TIMESTAMP_LTZ", `{"type":"TIMESTAMP_WITH_LOCAL_TIME_ZONE","precision":6}`},
		{"ARRAY<INT NOT NULL>", `{"type":"ARRAY","element_type":{"type":"INTEGER","nullable":false}}`},
		{"CHAR(5)", `{"type":"CHAR","length":5}`},
	} {
		ty, err := parseSQLType(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		js, err := ty.MarshalJSON()
		if err != nil || string(js) != tc.json {
			t.Errorf("%s: %s (%v), want %s", tc.in, js, err, tc.json)
		}
	}
	for _, bad := range []string{"", "NOPE", "DECIMAL(", "ARRAY<INT", "INT NOT", "DECIMAL(50,2)", "INT garbage"} {
		if _, err := parseSQLType(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
