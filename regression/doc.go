// Package regression is the SQL regression suite: it starts Inlet processes
// and speaks SQL to them through a MySQL driver, comparing results to expected
// outputs. It imports no Inlet package.
//
// `go test ./regression/` builds cmd/minifluss, cmd/fe and cmd/be, starts the
// emulator with the Doris fixture set (minifluss/testdata/doris_regression.scenario
// plus testdata/extra.scenario), a BE when cmd/be serves, and the FE; runs
// setup.sql (the shared catalogs) and then every suites/*.sql, one subtest
// per block. The INLET_REGRESSION_* variables (env.go) point it at an
// external cluster instead, e.g. docker/; the files and expectations are
// the same. `-update` rewrites the -- result rows for review.
//
// TestRegressionIceberg starts the emulator with --datalake-format iceberg
// over the same fixtures minus the tables an Iceberg lake refuses
// (icebergRefused) and runs the union-read, lake-only, PK, partition and
// nested-type suites (icebergSuites) with the same statements and results; blocks over
// the refused tables, or asserting Paimon's bucketing in EXPLAIN, require
// paimon-lake, and their Iceberg counterparts iceberg-lake.
//
// Suite files, parsed strictly (an error names file and line):
//
//	# comment
//	-- requires s3                  (file level: skip without the capability)
//	-- catalog fluss_required       (${ctl} of the blocks that follow)
//	-- statement NAME [requires=CAP]
//	SQL                             (must succeed, or:)
//	-- error SUBSTRING
//	-- query NAME [requires=CAP]
//	SQL using ${ctl}, ${BOOTSTRAP}, ${LAKE_PROPS}
//	-- result [sorted]              rows: tab-separated, \N = NULL, \E = one empty string
//	-- contains TEXT                (the rows, unescaped, contain TEXT)
//	-- explain                      assertions on EXPLAIN SQL, one a line:
//	unionRead=yes                   field of the flussScan line ([2] picks the 2nd)
//	1<=logRanges<=3                 integer ranges; fields on both sides allowed
//	!degraded                       field absent
//	contains TEXT | !contains TEXT | matches REGEXP
//	-- same-as fluss_disabled       same rows (as a multiset) with ${ctl} replaced
//
// What must stay true: expected rows are derived from the fixture scenario
// by hand (never copied from Inlet's output without review); a block that
// asserts nothing does not parse; no secret given through the environment
// appears in a failure message.
package regression
