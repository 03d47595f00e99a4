package sql

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseUsers(t *testing.T) {
	u := func(n, h string) *UserIdent { return &UserIdent{Name: n, Host: h} }
	tests := []struct {
		in   string
		want Statement
		str  string
	}{
		{"CREATE USER 'jack'@'%' IDENTIFIED BY 'p@ss''w'", &CreateUser{User: UserIdent{"jack", "%"}, Password: "p@ss'w", HasPassword: true},
			`CREATE USER 'jack'@'%' IDENTIFIED BY 'p@ss\'w'`},
		{"create user if not exists jack", &CreateUser{IfNotExists: true, User: UserIdent{"jack", ""}}, "CREATE USER IF NOT EXISTS 'jack'"},
		{"CREATE USER `a b`@'10.%' IDENTIFIED BY PASSWORD '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9'",
			&CreateUser{User: UserIdent{"a b", "10.%"}, HasPassword: true, PasswordHashed: true, Password: "*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"}, ""},
		{"CREATE USER 'sec'@'%' IDENTIFIED BY 'p' REQUIRE SSL", &CreateUser{User: UserIdent{"sec", "%"}, Password: "p", HasPassword: true, RequireSSL: true},
			"CREATE USER 'sec'@'%' IDENTIFIED BY 'p' REQUIRE SSL"},
		{"create user sec require none", &CreateUser{User: UserIdent{"sec", ""}}, "CREATE USER 'sec'"},
		{"ALTER USER 'sec'@'%' REQUIRE SSL", &AlterUser{User: UserIdent{"sec", "%"}, Require: "SSL"}, "ALTER USER 'sec'@'%' REQUIRE SSL"},
		{"alter user if exists sec identified by 'n' require none", &AlterUser{IfExists: true, User: UserIdent{"sec", ""}, Password: "n", HasPassword: true, Require: "NONE"},
			"ALTER USER IF EXISTS 'sec' IDENTIFIED BY 'n' REQUIRE NONE"},
		{"DROP USER IF EXISTS 'jack'@'%'", &DropUser{IfExists: true, User: UserIdent{"jack", "%"}}, "DROP USER IF EXISTS 'jack'@'%'"},
		{"drop user jack@'%'", &DropUser{User: UserIdent{"jack", "%"}}, ""},
		{"GRANT SELECT_PRIV, load_priv ON internal.db1.t1 TO 'jack'@'%'",
			&Grant{Privs: []string{"SELECT_PRIV", "LOAD_PRIV"}, On: []string{"internal", "db1", "t1"}, User: UserIdent{"jack", "%"}},
			"GRANT SELECT_PRIV, LOAD_PRIV ON internal.db1.t1 TO 'jack'@'%'"},
		{"GRANT SELECT_PRIV ON *.*.* TO jack", &Grant{Privs: []string{"SELECT_PRIV"}, On: []string{"*", "*", "*"}, User: UserIdent{"jack", ""}}, "GRANT SELECT_PRIV ON *.*.* TO 'jack'"},
		{"GRANT ALTER_PRIV ON db.* TO 'jack'", &Grant{Privs: []string{"ALTER_PRIV"}, On: []string{"db", "*"}, User: UserIdent{"jack", ""}}, ""},
		{"GRANT ALL ON *.* TO 'jack'", &Grant{Privs: []string{"ALL"}, On: []string{"*", "*"}, User: UserIdent{"jack", ""}}, ""},
		{"REVOKE DROP_PRIV ON fl.`my db`.`t$lake` FROM 'jack'@'%'",
			&Grant{Revoke: true, Privs: []string{"DROP_PRIV"}, On: []string{"fl", "my db", "t$lake"}, User: UserIdent{"jack", "%"}},
			"REVOKE DROP_PRIV ON fl.`my db`.`t$lake` FROM 'jack'@'%'"},
		{"SET PASSWORD = PASSWORD('x')", &SetPassword{Password: "x"}, "SET PASSWORD = PASSWORD('x')"},
		{"SET PASSWORD FOR 'jack'@'%' = '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9'",
			&SetPassword{User: u("jack", "%"), Password: "*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9", Hashed: true}, ""},
		{"SHOW GRANTS", &ShowGrants{}, "SHOW GRANTS"},
		{"SHOW ALL GRANTS", &ShowGrants{All: true}, "SHOW ALL GRANTS"},
		{"show grants for jack@'%'", &ShowGrants{User: u("jack", "%")}, "SHOW GRANTS FOR 'jack'@'%'"},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		if tc.str != "" && got.String() != tc.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got.String(), tc.str)
		}
		again, err := Parse(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("round trip of %q: %v %#v", got.String(), err, again)
		}
	}
}

func TestParseUsersErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"GRANT SELECT_PRIV ON t TO u", "privilege object must be db.tbl or ctl.db.tbl"},
		{"GRANT SELECT_PRIV ON a.b.c.d TO u", "privilege object must be"},
		{"GRANT SELECT_PRIV ON db.* TO ROLE 'r'", "roles are not supported"},
		{"GRANT USAGE_PRIV ON RESOURCE * TO u", "not supported"},
		{"REVOKE SELECT_PRIV ON db.* TO u", "FROM"},
		{"CREATE USER u IDENTIFIED BY", "string literal"},
		{"CREATE USER u IDENTIFIED BY 'p' COMMENT 'x'", "not supported"},
		{"SET PASSWORD FOR u PASSWORD('x')", "'='"},
		{"DROP USER", "user name"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want a syntax error with %q", tc.in, err, tc.want)
		}
	}
}

func TestMaskSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CREATE USER 'u'@'%' IDENTIFIED BY 's3cret'", "CREATE USER 'u'@'%' IDENTIFIED BY '*XXX'"},
		{"SET PASSWORD = PASSWORD('s3cret')", "SET PASSWORD = PASSWORD('*XXX')"},
		{"SET PASSWORD FOR 'u'@'%' = '*ABCDEF'", "SET PASSWORD FOR '*XXX'@'*XXX' = '*XXX'"},
		{"CREATE USER u IDENTIFIED BY 'unterminated", "CREATE USER u IDENTIFIED BY '*XXX"},
		{"SELECT 'p' FROM t", "SELECT 'p' FROM t"},
		{"GRANT SELECT_PRIV ON db.* TO 'u'", "GRANT SELECT_PRIV ON db.* TO 'u'"},
	}
	for _, tc := range tests {
		if got := MaskSecrets(tc.in); got != tc.want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
