// Package slt runs sqllogictest files (the format of SQLite's conformance
// corpus, public domain; the copy in github.com/gregrahn/sqllogictest)
// against an FE through a MySQL driver, as the reference harness
// (src/sqllogictest.c with its ODBC engine) would run them against MySQL.
//
// `go test ./regression/slt` builds cmd/fe, starts it, and runs the
// committed subset (testdata/corpus, see its README.md; a few minutes at
// most) against it, failing on any record that differs and is not in
// skiplist.txt, and on an FE crash. Any files or the whole corpus:
//
//	git clone https://github.com/gregrahn/sqllogictest /tmp/sqllogictest
//	go test ./regression/slt -run TestCorpus -v -timeout 0 -slt.report \
//	    -slt.path /tmp/sqllogictest/test [-slt.fe host:port] [-slt.slow 2s]
//
// which logs the pass rate per directory (-slt.report: mismatches are
// listed, not fatal).
//
// What must stay true:
//   - Values are rendered exactly as the reference harness renders them:
//     'I' as a 64-bit integer (a fraction truncated toward zero, text by
//     its numeric prefix), 'R' as C's "%.3f", 'T' with "(empty)" for the
//     empty string and '@' for every byte outside ' '..'~', "NULL" for
//     NULL; rowsort/valuesort order rendered values by byte comparison; a
//     result with more values than hash-threshold (or with a label) is
//     compared as "N values hashing to MD5" over every value plus "\n".
//   - The engine name is "mysql": skipif/onlyif mysql select records, and
//     a halt under them stops the file.
//   - A record is skipped only by the engine conditions of the file itself
//     or by an entry of the skip list (skiplist.txt), and every entry
//     carries the reason Doris/MySQL semantics differ from SQLite's. The
//     comparison itself is never weakened.
//   - Every file runs in a fresh database, dropped afterwards.
//   - The package imports no Inlet package: it speaks SQL to a process.
package slt
