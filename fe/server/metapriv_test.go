package server

import (
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMetadataFollowsPrivileges: as Doris does, a user sees in
// information_schema (internal and per catalog), SHOW CATALOGS and SHOW
// CREATE CATALOG only what it holds some privilege on, and in SHOW QUERY
// PROFILE only its own statements unless it holds ADMIN_PRIV.
func TestMetadataFollowsPrivileges(t *testing.T) {
	f := startFE(t, t.TempDir(), "rootpw", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE DATABASE d1", "CREATE DATABASE secret_db",
		"CREATE TABLE d1.t1 (a INT, b VARCHAR(10)) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 1",
		"CREATE TABLE d1.hidden (pw VARCHAR(10)) DUPLICATE KEY(pw) DISTRIBUTED BY HASH(pw) BUCKETS 1",
		"CREATE TABLE secret_db.s (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"CREATE VIEW d1.v_hidden AS SELECT pw FROM d1.hidden",
		"CREATE CATALOG ext PROPERTIES ('type'='localdir')",
		"CREATE CATALOG ext2 PROPERTIES ('type'='localdir')",
		"CREATE DATABASE ext.ed", "CREATE DATABASE ext.ed_hidden",
		"CREATE TABLE ext.ed.et (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"CREATE TABLE ext.ed_hidden.eh (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"CREATE USER u IDENTIFIED BY 'p'",
		"GRANT SELECT_PRIV ON internal.d1.t1 TO u",
		"GRANT SELECT_PRIV ON ext.ed.* TO u",
		"SELECT 'root statement' FROM d1.t1",
	)
	u := f.userDB("u", "p", "")
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT SCHEMA_NAME FROM information_schema.schemata ORDER BY 1", []string{"d1", "information_schema"}},
		{"SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA <> 'information_schema' ORDER BY 1, 2", []string{"d1|t1"}},
		{"SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA <> 'information_schema' ORDER BY 1, 2", []string{"t1|a", "t1|b"}},
		{"SELECT TABLE_NAME FROM information_schema.views", nil},
		{"SELECT SCHEMA_NAME FROM ext.information_schema.schemata ORDER BY 1", []string{"ed", "information_schema"}},
		{"SELECT TABLE_SCHEMA, TABLE_NAME FROM ext.information_schema.tables WHERE TABLE_SCHEMA <> 'information_schema' ORDER BY 1, 2", []string{"ed|et"}},
		{"SELECT SCHEMA_NAME FROM ext2.information_schema.schemata ORDER BY 1", []string{"information_schema"}},
	} {
		got, err := tryRows(u, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
	// Root still sees everything.
	wantRows(t, root, "SELECT count(*) FROM information_schema.tables WHERE TABLE_SCHEMA IN ('d1', 'secret_db')", "4")

	var names []string
	for _, r := range rows(t, u, "SHOW CATALOGS") {
		names = append(names, strings.Split(r, "|")[1])
	}
	if strings.Join(names, ",") != "ext,internal" && strings.Join(names, ",") != "internal,ext" {
		t.Errorf("SHOW CATALOGS as u: %q", names)
	}
	if got := rows(t, u, "SHOW CREATE CATALOG ext"); len(got) != 1 {
		t.Errorf("SHOW CREATE CATALOG ext: %q", got)
	}
	wantErr(t, u, "SHOW CREATE CATALOG ext2", 1221, "on catalog ext2")

}

// TestProfilesFollowPrivileges: SHOW QUERY PROFILE lists a user's own
// statements only, and another user's profile is "not found", unless the
// user holds ADMIN_PRIV.
func TestProfilesFollowPrivileges(t *testing.T) {
	f := startUnionFE(t)
	root := f.db("")
	mustExec(t, root, "CREATE USER u IDENTIFIED BY 'p'", "GRANT SELECT_PRIV ON fl_auto.fluss_test.* TO u",
		"CREATE USER adm IDENTIFIED BY 'p'", "GRANT ADMIN_PRIV ON *.*.* TO adm")
	rows(t, root, "SELECT 'root statement', count(*) FROM fl_auto.fluss_test.lake_pk")
	u := f.userDB("u", "p", "")
	rows(t, u, "SELECT 'user statement', count(*) FROM fl_auto.fluss_test.lake_pk")
	var prof []string
	for _, r := range rows(t, u, `SHOW QUERY PROFILE "/"`) {
		prof = append(prof, r)
		if !strings.Contains(r, "|u|") {
			t.Errorf("u sees another user's profile: %s", r)
		}
	}
	if len(prof) == 0 {
		t.Error("u sees no profile of its own statements")
	}
	var rootID string
	for _, r := range rows(t, root, `SHOW QUERY PROFILE "/"`) {
		if strings.Contains(r, "root statement") {
			rootID = strings.Split(r, "|")[0]
		}
	}
	if rootID == "" {
		t.Fatal("root's statement has no profile")
	}
	wantErr(t, u, `SHOW QUERY PROFILE "/`+rootID+`"`, 1105, "not found")
	// The HTTP pages ask for a user and show it the same.
	hs := httptest.NewServer(f.fe.Server.HTTPHandler())
	defer hs.Close()
	get := func(path, user, pass string) (int, string) {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/api/profiles", "", ""); code != http.StatusUnauthorized {
		t.Errorf("/api/profiles without a user: HTTP %d", code)
	}
	if code, _ := get("/api/profiles", "u", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("/api/profiles with a wrong password: HTTP %d", code)
	}
	if code, body := get("/api/profiles", "u", "p"); code != 200 || strings.Contains(body, "root statement") || !strings.Contains(body, "user statement") {
		t.Errorf("/api/profiles as u: HTTP %d\n%s", code, body)
	}
	if code, _ := get("/api/profile?query_id="+rootID, "u", "p"); code != http.StatusNotFound {
		t.Errorf("root's profile over HTTP as u: HTTP %d", code)
	}
	if code, body := get("/api/profile?query_id="+rootID, "adm", "p"); code != 200 || !strings.Contains(body, "root statement") {
		t.Errorf("root's profile over HTTP as adm: HTTP %d", code)
	}

	for _, db := range []*sql.DB{root, f.userDB("adm", "p", "")} {
		if got := rows(t, db, `SHOW QUERY PROFILE "/`+rootID+`"`); len(got) == 0 {
			t.Error("an admin cannot read root's profile")
		}
		if got := rows(t, db, `SHOW QUERY PROFILE "/"`); len(got) < 2 {
			t.Errorf("an admin sees %d profiles, want both", len(got))
		}
	}
}
