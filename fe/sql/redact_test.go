package sql

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrorHidesSecrets: the Near text of a syntax error never shows a
// secret literal; everything else in it is kept so the error still points at
// the mistake.
func TestSyntaxErrorHidesSecrets(t *testing.T) {
	cases := []struct {
		sql, near string
	}{
		// A missing comma between properties: the error is at the secret's name.
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'fluss.security.sasl.password'='hunter2')`,
			`'fluss.security.sasl.password'='*XXX'`}, // Near is cut at 40 bytes
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'x.pwd'='hunter2')`, `'x.pwd'='*XXX')`},
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'fluss.security.sasl.password'='hunter2hunter2hunter2')`,
			`'fluss.security.sasl.password'='*XXX`}, // cut inside the secret
		{`CREATE CATALOG c PROPERTIES('type'='fluss', 'client.security.sasl.jaas.config'='x required password="hunter2";' 'a'='b')`,
			`'a'='b')`},
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'uri'='jdbc:mysql://u:hunter2@h/db')`,
			`'uri'='*XXX')`},
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'fs.oss.credentials'='hunter2', 'x'='1')`,
			`'fs.oss.credentials'='*XXX', 'x'='1')`},
		{`CREATE CATALOG c PROPERTIES('type'='fluss' "s3.secret-key" = "hunter2")`,
			`"s3.secret-key" = "*XXX")`},
		// An unterminated secret: hidden to the end of input.
		{`CREATE CATALOG c PROPERTIES('x.password'='hunter2`, `'*XXX`},
		{`CREATE USER u IDENTIFIED BY 'hunter2' garbage`, ``},
		// Not secrets: shown as typed.
		{`CREATE CATALOG c PROPERTIES('type'='fluss' 'fluss.bootstrap.servers'='h:1')`,
			`'fluss.bootstrap.servers'='h:1')`},
		{`SELECT 'abc' FROM t WHERE x = 'hunter' 1`, `1`},
	}
	for _, c := range cases {
		_, err := Parse(c.sql)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: want a syntax error, got %v", c.sql, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error leaks the secret: %v", c.sql, err)
		}
		if c.near != "" && se.Near != c.near {
			t.Errorf("%s: near %q, want %q", c.sql, se.Near, c.near)
		}
		if _, err := ParseAll(c.sql); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseAll(%s): %v", c.sql, err)
		}
	}
	if _, err := ParseExpr(`f('x.password' = 'hunter2' 1)`); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("ParseExpr: %v", err)
	}
}

// TestInvalidUTF8Identifier: a name must be valid UTF-8; invalid bytes are a
// syntax error at the name, never a name stored as U+FFFD.
func TestInvalidUTF8Identifier(t *testing.T) {
	for _, q := range []string{
		"CREATE DATABASE `db\xff`",
		"CREATE DATABASE db\xfe\xff",
		"SELECT a\xc3 FROM t",
		"USE `\xed\xa0\x80`", // a UTF-16 surrogate encoded as UTF-8
	} {
		_, err := Parse(q)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("%q: %v", q, err)
		}
	}
	for _, q := range []string{"CREATE DATABASE `dé`", "CREATE DATABASE 数据", "SELECT 'a\xff' FROM t"} {
		if _, err := Parse(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
}
