package expr

import (
	"testing"
)

// TestJSONFunctions: values quoted from Doris's manual pages
// (doris.apache.org sql-manual json-functions: JSON_EXTRACT, JSON_EXTRACT_STRING,
// JSON_EXTRACT_INT, JSON_LENGTH, JSON_CONTAINS, JSON_INSERT, JSON_SEARCH,
// JSON_PARSE, JSON_TYPE) where it gives them ("doc" below), the rest derived
// by hand from the rules written beside each function.
func TestJSONFunctions(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k, s, d, dec, f := c["k"], c["s"], c["d"], c["dec"], c["f"]
	S := func(v string) Expr { return Str(v) }
	doc := S(`{"k1":"v31","k2":300}`)
	runDorisCases(t, []dorisCase{
		// json_parse normalises (doc); json_valid.
		{name: "json_parse", args: []Expr{S(` { "k1" : "v31", "k2":300 } `)}, want: `{"k1":"v31","k2":300}`},
		{name: "json_parse", args: []Expr{S(`[1, 2.50, -0, 1e2, "a\u00e9\n", true, null, {}]`)}, want: `[1,2.5,0,100,"aé\n",true,null,{}]`},
		{name: "json_parse", args: []Expr{S(`{"a":1,"a":2,"b":3}`)}, want: `{"a":2,"b":3}`},
		{name: "json_parse", args: []Expr{nullS()}, want: "NULL"},
		{name: "json_parse_error_to_null", args: []Expr{S("invalid json")}, want: "NULL"},
		{name: "json_parse_error_to_value", args: []Expr{S("invalid json")}, want: "{}"},                                                     // doc
		{name: "json_parse_error_to_value", args: []Expr{S("invalid json"), S(`{"key": "default value"}`)}, want: `{"key":"default value"}`}, // doc
		{name: "json_valid", args: []Expr{S(`{"a":[1,2]}`)}, want: "1"},
		{name: "json_valid", args: []Expr{S(`{"a":[1,2]`)}, want: "0"},
		{name: "json_valid", args: []Expr{S(`01`)}, want: "0"},
		{name: "json_valid", args: []Expr{S(`"tab	in string"`)}, want: "0"},
		{name: "json_valid", args: []Expr{S(`1e999`)}, want: "0"},
		{name: "json_valid", args: []Expr{s}, rows: []string{"0", "0", "NULL"}},
		// json_extract (doc examples 1, 4, 6, 7, 8, 9, 10, 11).
		{name: "json_extract", args: []Expr{doc, S("$.k1")}, want: `"v31"`},
		{name: "json_extract", args: []Expr{S(`{"k1":"v31","k2":{"sub_key": 1234.56}}`), S("$.k2.sub_key")}, want: "1234.56"},
		{name: "json_extract", args: []Expr{doc, S("$.k3")}, want: "NULL"},
		{name: "json_extract", args: []Expr{doc, nullS()}, want: "NULL"},
		{name: "json_extract", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.name"), S("$.id"), S("$.not_exists")}, want: `["doris",123]`},
		{name: "json_extract", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.aaa"), S("$.name")}, want: `["doris"]`},
		{name: "json_extract", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.k1"), S("$.k2")}, want: "NULL"},
		{name: "json_extract", args: []Expr{S(`{"k": [1,2,3,4,5]}`), S("$.k[*]")}, want: "[1,2,3,4,5]"},
		{name: "json_extract", args: []Expr{S(`{"k": [1,2,3,4,5], "k2": "abc", "k3": {"k4": "v4"}}`), S("$.*"), S("$.k3.k4")}, want: `[[1,2,3,4,5],"abc",{"k4":"v4"},"v4"]`},
		{name: "json_extract", args: []Expr{S(`{"k": 123, "b": {"k": ["ab", "cd"]}}`), S("$**.k")}, want: `[123,["ab","cd"]]`},
		{name: "json_extract", args: []Expr{S(`{"id": 123, "name": null}`), S("$.name")}, want: "null"},
		{name: "json_extract", args: []Expr{S(`[{"k":1},{"k":2},{"k":3}]`), S("$.k")}, want: "NULL"},
		{name: "json_extract", args: []Expr{S(`[{"k":1},{"k":2},{"k":3}]`), S("$[*].k")}, want: "[1,2,3]"},
		{name: "json_extract", args: []Expr{S(`{"k1.a":"abc","k2":300}`), S(`$."k1.a"`)}, want: `"abc"`},
		{name: "json_extract", args: []Expr{S(`{"a b":[10,20,30]}`), S(`$."a b"[last]`)}, want: "30"},
		{name: "json_extract", args: []Expr{S(`[10,20,30]`), S(`$[last-1]`)}, want: "20"},
		{name: "json_extract", args: []Expr{S(`[10,20,30]`), S(`$[3]`)}, want: "NULL"},
		{name: "json_extract", args: []Expr{S(`[10,20,30]`), S(`$`)}, want: "[10,20,30]"},
		{name: "json_extract", args: []Expr{S(`{bad`), S(`$`)}, want: "NULL"},
		// Typed extraction (doc: JSON_EXTRACT_STRING / _INT).
		{name: "json_extract_string", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.name")}, want: "doris"},
		{name: "json_extract_string", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.id")}, want: "123"},
		{name: "json_extract_string", args: []Expr{S(`{"id": null, "name": "doris"}`), S("$.id")}, want: "null"},
		{name: "json_extract_string", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.name2")}, want: "NULL"},
		{name: "get_json_string", args: []Expr{S(`{"k1":"v1", "my.key":["e1", "e2", "e3"]}`), S(`$."my.key"[1]`)}, want: "e2"},
		{name: "json_extract_int", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.id")}, want: "123"},
		{name: "json_extract_int", args: []Expr{S(`{"id": 123, "name": "doris"}`), S("$.name")}, want: "NULL"},
		{name: "json_extract_int", args: []Expr{S(`{"id": 3000000000}`), S("$.id")}, want: "NULL"},
		{name: "json_extract_int", args: []Expr{S(`{"id": -7.9}`), S("$.id")}, want: "-7"},
		{name: "get_json_int", args: []Expr{S(`{"id": true}`), S("$.id")}, want: "1"},
		{name: "json_extract_bigint", args: []Expr{S(`{"id": 3000000000}`), S("$.id")}, want: "3000000000"},
		{name: "get_json_bigint", args: []Expr{S(`{"id": 9223372036854775808}`), S("$.id")}, want: "NULL"},
		{name: "json_extract_largeint", args: []Expr{S(`{"id": -12345678901234567890123}`), S("$.id")}, want: "-12345678901234567890123"},
		// LARGEINT's whole range, -2^127 .. 2^127-1; one past it is NULL.
		{name: "json_extract_largeint", args: []Expr{S(`{"id": 170141183460469231731687303715884105727}`), S("$.id")}, want: "170141183460469231731687303715884105727"},
		{name: "json_extract_largeint", args: []Expr{S(`{"id": -170141183460469231731687303715884105728}`), S("$.id")}, want: "-170141183460469231731687303715884105728"},
		{name: "json_extract_largeint", args: []Expr{S(`{"id": 170141183460469231731687303715884105728}`), S("$.id")}, want: "NULL"},
		{name: "json_type", args: []Expr{S(`[-170141183460469231731687303715884105728]`), S("$[0]")}, want: "largeint"},
		{name: "json_extract_double", args: []Expr{S(`{"x": 1234.5, "y": 7}`), S("$.x")}, want: "1234.5"},
		{name: "get_json_double", args: []Expr{S(`{"x": 1234.5, "y": 7}`), S("$.y")}, want: "7"},
		{name: "get_json_double", args: []Expr{S(`{"x": "1"}`), S("$.x")}, want: "NULL"},
		{name: "json_extract_bool", args: []Expr{S(`{"x": true}`), S("$.x")}, want: "1"},
		{name: "json_extract_bool", args: []Expr{S(`{"x": "true"}`), S("$.x")}, want: "NULL"},
		{name: "json_extract_isnull", args: []Expr{S(`{"x": null, "y": 0}`), S("$.x")}, want: "1"},
		{name: "json_extract_isnull", args: []Expr{S(`{"x": null, "y": 0}`), S("$.y")}, want: "0"},
		{name: "json_extract_isnull", args: []Expr{S(`{"x": null, "y": 0}`), S("$.z")}, want: "NULL"},
		// json_type (doc: "string", "int"), json_length (doc), json_keys.
		{name: "json_type", args: []Expr{S(`{"name": "John", "age": 30}`), S("$.name")}, want: "string"},
		{name: "json_type", args: []Expr{S(`{"name": "John", "age": 30}`), S("$.age")}, want: "int"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[0]")}, want: "bigint"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[1]")}, want: "double"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[2]")}, want: "null"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[3]")}, want: "bool"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[4]")}, want: "array"},
		{name: "json_type", args: []Expr{S(`[3000000000, 1.5, null, true, [], {}]`), S("$[5]")}, want: "object"},
		{name: "json_length", args: []Expr{doc}, want: "2"},
		{name: "json_length", args: []Expr{S(`"abc"`)}, want: "1"},
		{name: "json_length", args: []Expr{S(`{"x": 1, "y": [1, 2]}`), S("$.y")}, want: "2"},
		{name: "json_length", args: []Expr{S(`{"x": 1}`), S("$.z")}, want: "NULL"},
		{name: "json_keys", args: []Expr{S(`{"b": 1, "a": {"c": 2}}`)}, want: `["b","a"]`},
		{name: "json_keys", args: []Expr{S(`{"b": 1, "a": {"c": 2}}`), S("$.a")}, want: `["c"]`},
		{name: "json_keys", args: []Expr{S(`[1]`)}, want: "NULL"},
		// json_contains (doc: 1, 1), json_exists_path.
		{name: "json_contains", args: []Expr{S(`{"a": 1, "b": 2, "c": {"d": 4}}`), S("1"), S("$.a")}, want: "1"},
		{name: "json_contains", args: []Expr{S(`[1, 2, {"x": 3}]`), S("1")}, want: "1"},
		{name: "json_contains", args: []Expr{S(`[1, 2, {"x": 3}]`), S(`{"x": 3}`)}, want: "1"},
		{name: "json_contains", args: []Expr{S(`[1, 2, {"x": 3}]`), S(`[2, 1]`)}, want: "1"},
		{name: "json_contains", args: []Expr{S(`[1, 2, {"x": 3}]`), S(`[2, 4]`)}, want: "0"},
		{name: "json_contains", args: []Expr{S(`{"a": 1, "b": 2, "c": {"d": 4}}`), S(`{"c": {"d": 4}, "a": 1.0}`)}, want: "1"},
		{name: "json_contains", args: []Expr{S(`{"a": 1}`), S(`{bad`)}, want: "NULL"},
		{name: "json_exists_path", args: []Expr{doc, S("$.k2")}, want: "1"},
		{name: "json_exists_path", args: []Expr{doc, S("$.k3")}, want: "0"},
		{name: "json_exists_path", args: []Expr{S(`[0, null]`), S("$[1]")}, want: "1"},
		// quote / unquote.
		{name: "json_quote", args: []Expr{S("a\"b\\c\n\x01")}, want: `"a\"b\\c\n\u0001"`},
		{name: "json_unquote", args: []Expr{S(`"a\"b\u00e9\n"`)}, want: "a\"bé\n"},
		{name: "json_unquote", args: []Expr{S(`abc`)}, want: "abc"},
		{name: "json_unquote", args: []Expr{S(`"a"b"`)}, want: `"a"b"`},
		{name: "json_quote", args: []Expr{s}, rows: []string{`"abc"`, `"Hello"`, "NULL"}},
		// Building JSON from SQL values: NULL is JSON null, JSON-producing
		// arguments nest as JSON.
		{name: "json_array", args: []Expr{k, s, dec, f, Bool(true), nullS()}, rows: []string{`[1,"abc",12.34,2.5,true,null]`, `[2,"Hello",-0.50,0,true,null]`, `[3,null,null,null,true,null]`}},
		{name: "json_array", args: []Expr{}, want: "[]"},
		{name: "json_object", args: []Expr{S("id"), k, S("d"), d}, rows: []string{`{"id":1,"d":"2024-01-31"}`, `{"id":2,"d":"2023-12-01"}`, `{"id":3,"d":null}`}},
		{name: "json_object", args: []Expr{S("a"), must(Func("json_parse", S(`[1, {"b": 2}]`))), S("s"), S(`[1]`)}, want: `{"a":[1,{"b":2}],"s":"[1]"}`},
		// json_insert / replace / set (doc: JSON_INSERT examples 1, 2, 4, 5, 6).
		{name: "json_insert", args: []Expr{S(`{}`), S("$.k"), must(Func("json_parse", S(`{}`))), S("$.k.k2"), Int(123)}, want: `{"k":{"k2":123}}`},
		{name: "json_insert", args: []Expr{S(`{"k": 1}`), S("$.k"), Int(2)}, want: `{"k":1}`},
		{name: "json_insert", args: []Expr{S(`{}`), S("$.k1.k2.k3"), Int(123)}, want: `{}`},
		{name: "json_insert", args: []Expr{S(`{"k": "v"}`), S("$[1]"), Int(123)}, want: `[{"k":"v"},123]`},
		{name: "json_insert", args: []Expr{S(`{"k": "v"}`), S("$.k[1]"), Int(123)}, want: `{"k":["v",123]}`},
		{name: "json_insert", args: []Expr{S(`{"k": "v"}`), S("$.k[1]"), nullS()}, want: `{"k":["v",null]}`},
		{name: "json_insert", args: []Expr{nullS(), S("$[1]"), Int(123)}, want: "NULL"},
		{name: "json_insert", args: []Expr{S(`{"k": "v"}`), nullS(), Int(123)}, want: "NULL"},
		{name: "json_replace", args: []Expr{S(`{"k": 1, "a": [1, 2]}`), S("$.k"), Int(2), S("$.z"), Int(3), S("$.a[5]"), Int(9), S("$.a[0]"), S("x")}, want: `{"k":2,"a":["x",2]}`},
		{name: "json_set", args: []Expr{S(`{"k": 1, "a": [1, 2]}`), S("$.k"), Int(2), S("$.z"), Int(3), S("$.a[5]"), Int(9)}, want: `{"k":2,"a":[1,2,9],"z":3}`},
		{name: "json_set", args: []Expr{S(`{"k": 1}`), S("$"), S("all")}, want: `"all"`},
		// json_search (doc examples 1, 2, 4, 5; "all" with LIKE wildcards).
		{name: "json_search", args: []Expr{S(`{"name": "John", "age": 30}`), S("one"), S("John")}, want: `"$.name"`},
		{name: "json_search", args: []Expr{S(`{"name": "John", "age": 30, "alias": "John"}`), S("one"), S("John")}, want: `"$.name"`},
		{name: "json_search", args: []Expr{S(`{"name": "John", "age": 30}`), S("one"), S("Alice")}, want: "NULL"},
		{name: "json_search", args: []Expr{S(`{"name": "John", "age": 30}`), nullS(), S("Alice")}, want: "NULL"},
		{name: "json_search", args: []Expr{S(`{"a": ["Jo", {"b c": "Joe"}], "d": "x"}`), S("all"), S("Jo%")}, want: `["$.a[0]","$.a[1].\"b c\""]`},
	})
	runErrCases(t, []errCase{
		{"json_parse", []Expr{S("invalid json")}, ErrType},
		{"json_extract", []Expr{doc, S("k1")}, ErrType},
		{"json_extract", []Expr{doc, S("$[x]")}, ErrType},
		{"json_extract_int", []Expr{doc, S("$.")}, ErrType},
		{"json_extract", []Expr{doc, must(Func("concat", S("x."), s))}, ErrType}, // row path 'x.abc'
		{"json_insert", []Expr{doc, S("$.*"), Int(2)}, ErrType},
		{"json_object", []Expr{S("a")}, ErrArity},
		{"json_object", []Expr{nullS(), Int(1)}, ErrType},
		{"json_search", []Expr{doc, S("three"), S("x")}, ErrType},
		{"json_set", []Expr{doc, S("$.a")}, ErrArity},
	})
}

// TestJSONPathParser: the paths the Doris manual writes, and malformed ones.
func TestJSONPathParser(t *testing.T) {
	for _, c := range []struct {
		path  string
		ok    bool
		steps int
		wild  bool
	}{
		{"$", true, 0, false}, {"$.a.b[0]", true, 3, false}, {`$."key with space"`, true, 1, false},
		{"$[*]", true, 1, true}, {"$.*", true, 1, true}, {"$**.k", true, 2, true}, {"$[last]", true, 1, false},
		{"$[last-2].x", true, 2, false}, {"$[ 1 ]", true, 1, false},
		{"", false, 0, false}, {"a", false, 0, false}, {"$.", false, 0, false}, {"$[", false, 0, false},
		{"$[-1]", false, 0, false}, {"$[last+1]", false, 0, false}, {`$."open`, false, 0, false}, {"$**", false, 0, false},
		{"$a", false, 0, false}, {"$[1]x", false, 0, false},
	} {
		p, ok := parseJSONPath(c.path)
		if ok != c.ok || (ok && (len(p.steps) != c.steps || p.wild != c.wild)) {
			t.Errorf("parseJSONPath(%q) = %+v, %v; want ok=%v steps=%d wild=%v", c.path, p, ok, c.ok, c.steps, c.wild)
		}
	}
}

// FuzzJSON: the JSON reader and the path parser never panic; whatever
// parses prints as text that parses back to the same text (normal form is
// a fixed point), and every path that parses can be evaluated.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1e5,-0.0,"\u00e9\ud83d\ude00"]`, `"\ud800"`, `{"a":1,"a":2}`,
		`[[[[]]]]`, `12345678901234567890123`, `{"x":"\\\"/\b\f\n\r\t"}`, ` true `, `nul`} {
		f.Add(s, "$.a[0]")
	}
	f.Add(`{"a b":{"c":[1,2]}}`, `$."a b".c[last]`)
	f.Add(`[{"k":1}]`, `$**.k`)
	f.Add(`[{"k":1}]`, `$[*].*`)
	f.Fuzz(func(t *testing.T, doc, path string) {
		n, ok := parseJSON(doc)
		if ok {
			text := n.text()
			n2, ok2 := parseJSON(text)
			if !ok2 || n2.text() != text {
				t.Fatalf("%q → %q does not read back (%v)", doc, text, ok2)
			}
		}
		p, pok := parseJSONPath(path)
		if ok && pok {
			_ = find(n, p.steps, nil)
			if !p.wild {
				_ = modify(n, p, &jnode{k: jNull}, 's')
			}
		}
	})
}
