package expr

// dorisFunc reaches the families added from Doris's function list
// (fe/bind/testdata/doris_functions.txt, issue 15): JSON (func_json.go),
// date/time, string/URL and math/hash (func_doris_*.go).
func dorisFunc(name string, args []Expr) (builder, bool) {
	for _, family := range []func(string, []Expr) (builder, bool){jsonFunc, dorisDateFunc, dorisStringFunc, dorisMathFunc, dorisRestFunc} {
		if f, ok := family(name, args); ok {
			return f, true
		}
	}
	return nil, false
}
