package auth

import (
	"crypto/sha1"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func open(t *testing.T, dir string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuthenticate(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, WithRootPassword("rootpw"))
	if err := s.CreateUser(Identity{"jack", "%"}, "jackpw", false); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(Identity{"lan", "10.0.%"}, "", false); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		user, host, pw string
		ok             bool
	}{
		{"root", "1.2.3.4", "rootpw", true},
		{"admin", "1.2.3.4", "rootpw", true},
		{"root", "1.2.3.4", "", false},
		{"root", "1.2.3.4", "wrong", false},
		{"jack", "127.0.0.1", "jackpw", true},
		{"jack", "127.0.0.1", "jackpw2", false},
		{"jack", "127.0.0.1", "", false},
		{"JACK", "127.0.0.1", "jackpw", false}, // names are case-sensitive
		{"nobody", "127.0.0.1", "x", false},
		{"lan", "10.0.3.7", "", true},
		{"lan", "10.1.3.7", "", false},
		{"lan", "10.0.3.7", "x", false},
	}
	for _, tc := range tests {
		err := s.Authenticate(tc.user, tc.host, tc.pw)
		if (err == nil) != tc.ok {
			t.Errorf("Authenticate(%s@%s, %q) = %v, want ok=%v", tc.user, tc.host, tc.pw, err, tc.ok)
			continue
		}
		if err != nil {
			want := "Access denied for user '" + tc.user + "'@'" + tc.host + "' (using password: "
			if !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrAccessDenied) {
				t.Errorf("Authenticate(%s): error %q, want prefix %q", tc.user, err, want)
			}
			if tc.pw != "" && strings.Contains(err.Error(), tc.pw) {
				t.Errorf("error %q shows the password", err)
			}
			var e *Error
			if !errors.As(err, &e) || e.Num != 1045 || e.State != "28000" {
				t.Errorf("error %v: want 1045/28000", err)
			}
		}
	}
}

func TestRootWithoutPassword(t *testing.T) {
	s := open(t, t.TempDir())
	if err := s.Authenticate("root", "h", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Authenticate("root", "h", "x"); err == nil {
		t.Fatal("root with a password accepted while root has none")
	}
	if h, ok := s.NativeHash("root", "h"); !ok || h != nil {
		t.Fatalf("NativeHash(root) = %x, %v", h, ok)
	}
}

// TestNativeHash: the stored hash is MySQL's SHA1(SHA1(p)), which is what a
// mysql_native_password scramble is verified against.
func TestNativeHash(t *testing.T) {
	s := open(t, t.TempDir())
	if err := s.CreateUser(Identity{"u", ""}, "pw", false); err != nil {
		t.Fatal(err)
	}
	h1 := sha1.Sum([]byte("pw"))
	h2 := sha1.Sum(h1[:])
	got, ok := s.NativeHash("u", "anything")
	if !ok || string(got) != string(h2[:]) {
		t.Fatalf("NativeHash = %x, %v; want %x", got, ok, h2)
	}
	if _, ok := s.NativeHash("v", "anything"); ok {
		t.Fatal("unknown user has a hash")
	}
}

func TestCheck(t *testing.T) {
	s := open(t, t.TempDir())
	id := Identity{"u", "%"}
	if err := s.CreateUser(id, "pw", false); err != nil {
		t.Fatal(err)
	}
	grants := []struct {
		p  Priv
		on Object
	}{
		{SelectPriv, Object{"internal", "db1", "t1"}},
		{LoadPriv | SelectPriv, Object{"internal", "db2", "*"}},
		{SelectPriv, Object{"fluss", "*", "*"}},
		{CreatePriv, Object{"*", "*", "*"}},
	}
	for _, g := range grants {
		if err := s.Grant(id, g.p, g.on); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		priv         Priv
		ctl, db, tbl string
		ok           bool
		num          uint16
		msg          string
	}{
		{SelectPriv, "internal", "db1", "t1", true, 0, ""},
		{SelectPriv, "internal", "DB1", "T1", true, 0, ""}, // names compare case-insensitively
		{SelectPriv, "internal", "db1", "t2", false, 1142, "SELECT command denied to user 'u'@'%' for table 'internal: db1: t2'"},
		{LoadPriv, "internal", "db1", "t1", false, 1142, "LOAD command denied to user 'u'@'%' for table 'internal: db1: t1'"},
		{LoadPriv, "internal", "db2", "anything", true, 0, ""},
		{LoadPriv, "internal", "db2", "", true, 0, ""},
		{AlterPriv, "internal", "db2", "x", false, 1142, "ALTER command denied"},
		{SelectPriv, "fluss", "any", "thing", true, 0, ""},
		{LoadPriv, "fluss", "any", "thing", false, 1142, "LOAD command denied"},
		{CreatePriv, "paimon", "d", "t", true, 0, ""},
		{CreatePriv, "", "", "", true, 0, ""},
		{DropPriv, "internal", "db3", "", false, 1044, "Access denied for user 'u'@'%' to database 'db3'"},
		{AdminPriv, "", "", "", false, 1227, "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation"},
		{SelectPriv, "internal", "", "", false, 1221, "Access denied; you need (at least one of) the (Select_priv) privilege(s) on catalog internal for this operation"},
	}
	for _, tc := range tests {
		err := s.Check("u", tc.priv, tc.ctl, tc.db, tc.tbl)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%v on %s.%s.%s) = %v, want ok=%v", tc.priv, tc.ctl, tc.db, tc.tbl, err, tc.ok)
			continue
		}
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Num != tc.num || !strings.HasPrefix(e.Msg, tc.msg) || !errors.Is(err, ErrPrivDenied) {
			t.Errorf("Check(%v on %s.%s.%s) = %#v, want %d %q", tc.priv, tc.ctl, tc.db, tc.tbl, err, tc.num, tc.msg)
		}
	}
	for _, root := range []string{"root", "admin"} {
		if err := s.Check(root, AdminPriv|LoadPriv, "x", "y", "z"); err != nil {
			t.Errorf("%s: %v", root, err)
		}
	}
	if err := s.Check("ghost", SelectPriv, "internal", "db1", "t1"); err == nil {
		t.Error("unknown user passes Check")
	}
	if !s.HasAny("u", SelectPriv, "internal", "db1") || s.HasAny("u", SelectPriv, "internal", "db9") {
		t.Error("HasAny: db1 has a readable table, db9 none")
	}
}

func TestGrantRevoke(t *testing.T) {
	s := open(t, t.TempDir())
	id := Identity{"u", "%"}
	if err := s.CreateUser(id, "", false); err != nil {
		t.Fatal(err)
	}
	on := Object{"internal", "db", "t"}
	if err := s.Grant(id, SelectPriv|LoadPriv, on); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(id, SelectPriv, on); err != nil {
		t.Fatal(err)
	}
	if s.Has("u", SelectPriv, "internal", "db", "t") || !s.Has("u", LoadPriv, "internal", "db", "t") {
		t.Fatal("revoke of SELECT_PRIV must leave LOAD_PRIV alone")
	}
	err := s.Revoke(id, SelectPriv, on)
	var e *Error
	if !errors.As(err, &e) || e.Num != 1141 || e.Msg != "There is no such grant defined for user 'u' on host '%'" {
		t.Fatalf("revoking what is not granted: %v", err)
	}
	// Revoking at the table level does not take a database grant away.
	if err := s.Grant(id, SelectPriv, Object{"internal", "db", "*"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(id, LoadPriv, on); err != nil {
		t.Fatal(err)
	}
	if !s.Has("u", SelectPriv, "internal", "db", "t") {
		t.Fatal("db-level grant lost")
	}
	bad := []struct {
		p  Priv
		on Object
		id Identity
	}{
		{SelectPriv, Object{"*", "db", "*"}, id},
		{SelectPriv, Object{"internal", "*", "t"}, id},
		{AdminPriv, Object{"internal", "*", "*"}, id},
		{SelectPriv, on, Identity{"nobody", "%"}},
		{SelectPriv, on, Identity{"u", "10.%"}}, // same name, other host: another identity
		{SelectPriv, on, Identity{"root", "%"}},
		{0, on, id},
	}
	for _, b := range bad {
		if err := s.Grant(b.id, b.p, b.on); err == nil || !errors.Is(err, ErrInvalidGrant) {
			t.Errorf("Grant(%v, %v, %v) = %v, want an invalid grant", b.id, b.p, b.on, err)
		}
	}
}

func TestUsersLifecycle(t *testing.T) {
	s := open(t, t.TempDir())
	id := Identity{"u", "%"}
	if err := s.CreateUser(id, "a", false); err != nil {
		t.Fatal(err)
	}
	err := s.CreateUser(id, "b", false)
	var e *Error
	if !errors.As(err, &e) || e.Num != 1396 || e.Msg != "Operation CREATE USER failed for 'u'@'%'" {
		t.Fatalf("duplicate CREATE USER: %v", err)
	}
	if err := s.CreateUser(id, "b", true); err != nil {
		t.Fatalf("IF NOT EXISTS: %v", err)
	}
	if err := s.Authenticate("u", "h", "a"); err != nil {
		t.Fatal("IF NOT EXISTS changed the password")
	}
	for _, n := range []string{"root", "admin"} {
		if err := s.CreateUser(Identity{n, "%"}, "x", false); err == nil {
			t.Errorf("CREATE USER %s accepted", n)
		}
		if err := s.DropUser(Identity{n, "%"}, true); err == nil {
			t.Errorf("DROP USER %s accepted", n)
		}
		if err := s.SetPassword(Identity{n, "%"}, "x"); err == nil {
			t.Errorf("SET PASSWORD for %s accepted", n)
		}
	}
	if err := s.SetPassword(id, "c"); err != nil {
		t.Fatal(err)
	}
	if s.Authenticate("u", "h", "a") == nil || s.Authenticate("u", "h", "c") != nil {
		t.Fatal("SET PASSWORD did not take")
	}
	if err := s.DropUser(id, false); err != nil {
		t.Fatal(err)
	}
	if err := s.DropUser(id, false); !errors.As(err, &e) || e.Msg != "Operation DROP USER failed for 'u'@'%'" {
		t.Fatalf("second DROP USER: %v", err)
	}
	if err := s.DropUser(id, true); err != nil {
		t.Fatal(err)
	}
	if s.Authenticate("u", "h", "c") == nil {
		t.Fatal("dropped user logs in")
	}
	// A re-created user starts without the old grants.
	if err := s.CreateUser(id, "", false); err != nil {
		t.Fatal(err)
	}
	if s.Has("u", SelectPriv, "a", "b", "c") {
		t.Fatal("grants survived DROP USER")
	}
}

// TestPersistence: users, hashes and grants survive reopening, the file
// holds only the hash, and a corrupt file is an error naming it.
func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	id := Identity{"jack", "%"}
	const pw = "Very$ecret-pw"
	if err := s.CreateUser(id, pw, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(id, SelectPriv|LoadPriv, Object{"internal", "db", "t"}); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dir)
	if err := s2.Authenticate("jack", "h", pw); err != nil {
		t.Fatal(err)
	}
	if !s2.Has("jack", SelectPriv|LoadPriv, "internal", "db", "t") {
		t.Fatal("grant lost on reopen")
	}
	b, err := os.ReadFile(filepath.Join(dir, fileName))
	if err != nil {
		t.Fatal(err)
	}
	h1 := sha1.Sum([]byte(pw))
	h2 := sha1.Sum(h1[:])
	if strings.Contains(string(b), pw) || !strings.Contains(string(b), strings.ToLower(strings.TrimSpace(hexOf(h2[:])))) {
		t.Fatalf("file must hold the stage-2 hash and not the password:\n%s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // the users file and its marker: no temporary files left
		t.Fatalf("stray files in the meta dir: %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, fileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), fileName) {
		t.Fatalf("corrupt file: %v", err)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestShowGrants(t *testing.T) {
	s := open(t, t.TempDir(), WithRootPassword("x"))
	id := Identity{"jack", "%"}
	if err := s.CreateUser(id, "pw", false); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		p  Priv
		on Object
	}{
		{SelectPriv, Object{"*", "*", "*"}},
		{LoadPriv | AlterPriv, Object{"fluss", "*", "*"}},
		{DropPriv, Object{"internal", "db1", "*"}},
		{CreatePriv, Object{"internal", "db1", "t2"}},
		{SelectPriv | LoadPriv, Object{"internal", "db1", "t1"}},
	} {
		if err := s.Grant(id, g.p, g.on); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.ShowGrants(&id)
	if err != nil {
		t.Fatal(err)
	}
	want := GrantRow{UserIdentity: "'jack'@'%'", Password: "Yes", GlobalPrivs: "Select_priv",
		CatalogPrivs: "fluss: Load_priv,Alter_priv", DatabasePrivs: "internal.db1: Drop_priv",
		TablePrivs: "internal.db1.t1: Select_priv,Load_priv; internal.db1.t2: Create_priv"}
	if len(rows) != 1 || rows[0] != want {
		t.Fatalf("ShowGrants = %#v\nwant %#v", rows, want)
	}
	if v := rows[0].Values(); len(v) != len(Columns) || v[8] != nil {
		t.Fatalf("Values = %v", v)
	}
	all, err := s.ShowGrants(nil)
	if err != nil || len(all) != 3 || all[0].UserIdentity != "'root'@'%'" || all[0].Password != "Yes" ||
		all[0].GlobalPrivs != "Node_priv,Admin_priv" || all[1].UserIdentity != "'admin'@'%'" {
		t.Fatalf("ShowGrants(all) = %#v, %v", all, err)
	}
	if _, err := s.ShowGrants(&Identity{"ghost", "%"}); err == nil {
		t.Fatal("SHOW GRANTS for an unknown user")
	}
}

func TestHostMatch(t *testing.T) {
	tests := []struct {
		pat, host string
		ok        bool
	}{
		{"%", "1.2.3.4", true},
		{"%", "", true},
		{"10.0.%", "10.0.1.2", true},
		{"10.0.%", "10.1.1.2", false},
		{"10.0.0._", "10.0.0.7", true},
		{"10.0.0._", "10.0.0.17", false},
		{"localhost", "LOCALHOST", true},
		{"%.example.com", "a.b.example.com", true},
		{"%.example.com", "example.com", false},
		{"%a%b%", "xxaxxbxx", true},
		{"%a%b%", "xxbxxaxx", false},
	}
	for _, tc := range tests {
		if got := hostMatch(tc.pat, tc.host); got != tc.ok {
			t.Errorf("hostMatch(%q, %q) = %v", tc.pat, tc.host, got)
		}
	}
}

func TestParsePriv(t *testing.T) {
	for in, want := range map[string]Priv{"select_priv": SelectPriv, "LOAD_PRIV": LoadPriv, "ALL": AllPrivs &^ AdminPriv, "admin_priv": AdminPriv} {
		if got, err := ParsePriv(in); err != nil || got != want {
			t.Errorf("ParsePriv(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParsePriv("USAGE_PRIV"); err == nil || !strings.Contains(err.Error(), "USAGE_PRIV") {
		t.Errorf("ParsePriv(USAGE_PRIV) = %v", err)
	}
}

// TestFailedSaveRollsBack: when the file cannot be written the change is
// refused and not kept in memory either.
func TestFailedSaveRollsBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "meta")
	s := open(t, dir)
	id := Identity{"u", "%"}
	if err := s.CreateUser(id, "pw", false); err != nil {
		t.Fatal(err)
	}
	// A file where the directory was: even root cannot create the
	// temporary file now.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what string
		err  error
	}{
		{"CreateUser", s.CreateUser(Identity{"v", "%"}, "pw", false)},
		{"Grant", s.Grant(id, SelectPriv, Object{"internal", "db", "t"})},
		{"SetPassword", s.SetPassword(id, "new")},
		{"DropUser", s.DropUser(id, false)},
	}
	for _, c := range checks {
		if c.err == nil || !strings.Contains(c.err.Error(), "users.json") || strings.Contains(c.err.Error(), "pw") {
			t.Errorf("%s with an unwritable meta dir: %v", c.what, c.err)
		}
	}
	if s.Authenticate("v", "h", "pw") == nil {
		t.Error("user of a failed CREATE USER logs in")
	}
	if s.Has("u", SelectPriv, "internal", "db", "t") {
		t.Error("grant of a failed GRANT is held")
	}
	if s.Authenticate("u", "h", "pw") != nil {
		t.Error("failed SET PASSWORD or DROP USER took effect")
	}
}

// TestConcurrentChanges: changes from many goroutines are all kept, in
// memory and on disk.
func TestConcurrentChanges(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	const n = 16
	errs := make(chan error, 2*n)
	for i := range n {
		go func() {
			id := Identity{User: "u" + string(rune('a'+i)), Host: "%"}
			err := s.CreateUser(id, "pw", false)
			if err == nil {
				err = s.Grant(id, LoadPriv, Object{"internal", "db", "*"})
			}
			errs <- err
			_ = s.Check(id.User, LoadPriv, "internal", "db", "t")
			errs <- nil
		}()
	}
	for range 2 * n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s2 := open(t, dir)
	for i := range n {
		name := "u" + string(rune('a'+i))
		if err := s2.Check(name, LoadPriv, "internal", "db", "t"); err != nil {
			t.Errorf("%s after reopen: %v", name, err)
		}
	}
}

// TestHashedPassword: IDENTIFIED BY PASSWORD '*HEX' stores MySQL's
// PASSWORD() output, and the cleartext then logs in.
func TestHashedPassword(t *testing.T) {
	s := open(t, t.TempDir())
	// MySQL: SELECT PASSWORD('secret') = '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'.
	if err := s.CreateUserHashed(Identity{"h", "%"}, "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7", false); err != nil {
		t.Fatal(err)
	}
	if err := s.Authenticate("h", "x", "secret"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPasswordHashed(Identity{"h", "%"}, "*14E65567ABDB5135D0CFD9A70B3032C179A49EE"); err == nil {
		t.Fatal("short hash accepted")
	}
	if err := s.SetPasswordHashed(Identity{"h", "%"}, "14E65567ABDB5135D0CFD9A70B3032C179A49EE7X"); err == nil {
		t.Fatal("hash without '*' accepted")
	}
	if err := s.Authenticate("h", "x", "secret"); err != nil {
		t.Fatal("a refused SET PASSWORD changed the password")
	}
}

// A users file deleted after the FE kept users in it stops the start with an
// error naming it, instead of silently dropping every account; a fresh
// directory, and one from before the marker existed, start as before.
func TestMissingUsersFileRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if err := s.CreateUser(Identity{"jack", "%"}, "pw", false); err != nil {
		t.Fatal(err)
	}
	open(t, dir) // restart with the file: fine
	if err := os.Remove(filepath.Join(dir, fileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, fileName)) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Open without the users file: %v", err)
	}
	// A directory written before the marker existed: users file, no marker.
	old := t.TempDir()
	s = open(t, old)
	if err := s.CreateUser(Identity{"lan", "%"}, "", false); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(old, markerName))
	if err := open(t, old).Authenticate("lan", "10.1.1.1", ""); err != nil {
		t.Fatalf("user lost on reopening a directory without the marker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(old, markerName)); err != nil {
		t.Fatalf("marker not written on reopening: %v", err)
	}
}
