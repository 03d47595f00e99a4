// Package webui is the FE's web page (Doris serves its web UI on the HTTP
// port, 8030): the recent statements and, per query, its profile drawn as
// a timeline. Pages are server-rendered HTML with inline SVG and CSS: no
// script, no CDN, no build step, so they work offline and in any browser.
//
//	/                 recent statements: user, state, time, rows, scan rows
//	                  and bytes, the statement (secrets masked)
//	/query/{key}      one statement (key: its query id, or its number in the
//	                  list): summary, the timeline of its fragments, the
//	                  Fluss counters of each scan, the operator tree (as
//	                  EXPLAIN prints it), the text profile
//
// What must stay true:
//   - Every page needs HTTP basic auth with a SQL user (server.HTTPUser);
//     a user sees only their own statements unless they hold ADMIN_PRIV.
//   - Statements are shown as the audit log keeps them (secrets masked) and
//     every value is HTML-escaped (html/template).
//   - The timeline draws what was measured: a fragment's bar is from the
//     FE's request to the end of its stream; per-kind bars (lake splits,
//     log ranges, PK ranges, tail reads, suppression) are the BEs' summed
//     times for that kind, drawn from the fragment's start and labelled as
//     sums, since the BEs report totals rather than each range's start.
package webui
