package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestIsSecretAndMask(t *testing.T) {
	cases := []struct {
		name   string
		secret bool
	}{
		{"fluss.client.security.sasl.password", true},
		{"fluss.lake.paimon.s3.secret-key", true},
		{"fluss.lake.paimon.s3.access-key", true},
		{"api.token", true},
		{"fluss.bootstrap.servers", false},
		{"type", false},
	}
	for _, c := range cases {
		if got := IsSecret(c.name); got != c.secret {
			t.Errorf("IsSecret(%q) = %v, want %v", c.name, got, c.secret)
		}
	}
	m := MaskProperties(map[string]string{"type": "fluss", "x.password": "hunter2"})
	if m["type"] != "fluss" || m["x.password"] != MaskedValue {
		t.Fatalf("MaskProperties = %v", m)
	}
}

func TestPropsErrorsNameTheProperty(t *testing.T) {
	p := NewProps(map[string]string{"a": "x", "b": "7", "c": "maybe", "s.password": "hunter2"})
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"missing", func() error { _, err := p.Required("zz"); return err }(), "missing required property 'zz'"},
		{"int", func() error { _, err := p.Int("a", 0, 0, 10); return err }(), "property 'a' must be an integer, got 'x'"},
		{"range", func() error { _, err := p.Int("b", 0, 0, 5); return err }(), "property 'b' must be between 0 and 5, got 7"},
		{"bool", func() error { _, err := p.Bool("c", false); return err }(), "property 'c' must be true or false, got 'maybe'"},
		{"enum", func() error { _, err := p.Enum("c", "", "auto", "required"); return err }(), "property 'c' must be one of auto, required, got 'maybe'"},
		{"secret", func() error { _, err := p.Bool("s.password", false); return err }(), "property 's.password' must be true or false, got *XXX"},
	}
	for _, c := range cases {
		if c.err == nil || !errors.Is(c.err, ErrInvalidProperty) {
			t.Errorf("%s: err = %v, want ErrInvalidProperty", c.name, c.err)
			continue
		}
		if got := c.err.Error(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if v, err := p.Enum("zz", "auto", "auto"); err != nil || v != "auto" {
		t.Errorf("default enum = %q, %v", v, err)
	}
}

func TestRegistry(t *testing.T) {
	open := func(context.Context, map[string]string, Env) (Catalog, error) { return nil, errors.New("unused") }
	if _, err := NewRegistry(Type{Name: "a", Open: open}, Type{Name: "A", Open: open}); err == nil {
		t.Fatal("duplicate type accepted")
	}
	r, err := NewRegistry(Type{Name: "fluss", Open: open}, Type{Name: "paimon", Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Lookup(map[string]string{"type": "hive"}); !errors.Is(err, ErrUnknownType) || err.Error() != "Unknown catalog type: hive (supported: fluss, paimon)" {
		t.Fatalf("Lookup(hive) = %v", err)
	}
	if _, err := r.Lookup(map[string]string{}); !errors.Is(err, ErrInvalidProperty) {
		t.Fatalf("Lookup() = %v", err)
	}
	if ty, err := r.Lookup(map[string]string{"type": " Fluss"}); err != nil || ty.Name != "fluss" {
		t.Fatalf("Lookup(Fluss) = %v, %v", ty.Name, err)
	}
}

func TestPredicateString(t *testing.T) {
	cases := []struct {
		p    Predicate
		want string
	}{
		{Predicate{Column: "dt", Op: "=", Values: []any{"2026-01-01"}}, "`dt` = '2026-01-01'"},
		{Predicate{Column: "k", Op: "IN", Values: []any{int64(1), int64(2)}}, "`k` IN (1, 2)"},
		{Predicate{Column: "a`b", Op: "IS NULL"}, "`a``b` IS NULL"},
		{Predicate{Column: "s", Op: ">=", Values: []any{"it's"}}, "`s` >= 'it\\'s'"},
		{Predicate{Column: "f", Op: "<", Values: []any{1.5}}, "`f` < 1.5"},
	}
	for _, c := range cases {
		if got := c.p.String(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.p, got, c.want)
		}
	}
}

// TestMaskValue: secrets are found by name (the list of IsSecret) and by
// value (an embedded password assignment, a URI's password), and nothing
// else is changed.
func TestMaskValue(t *testing.T) {
	jaas := `org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required username="admin" password="hunter2";`
	cases := []struct {
		name, value, want string
	}{
		{"client.security.sasl.jaas.config", jaas, MaskedValue},
		{"fluss.client.security.sasl.jaas.config", "anything", MaskedValue},
		{"some.option", jaas, MaskedValue}, // by value: password="…"
		{"fs.oss.credentials", "abc", MaskedValue},
		{"fs.s3a.aws.credentials.provider", "x.Y", MaskedValue},
		{"db.passwd", "hunter2", MaskedValue},
		{"DB.PassWD.file", "hunter2", MaskedValue},
		{"jdbc.pwd", "hunter2", MaskedValue},
		{"ssl.private.file", "/etc/k", MaskedValue},
		{"opts", "user=a;Password = hunter2", MaskedValue},
		{"uri", "jdbc:mysql://admin:hunter2@db.example:3306/x?y=1", "jdbc:mysql://admin:*XXX@db.example:3306/x?y=1"},
		{"uri", "s3://ak:sk@bucket/p, http://u:p@h", "s3://ak:*XXX@bucket/p, http://u:*XXX@h"},
		{"uri", "http://user@h/a:b@c", "http://user@h/a:b@c"}, // no password in the authority
		{"fluss.bootstrap.servers", "127.0.0.1:9123", "127.0.0.1:9123"},
		{"warehouse", "file:///tmp/w", "file:///tmp/w"},
		{"type", "fluss", "fluss"},
	}
	for _, c := range cases {
		got := MaskValue(c.name, c.value)
		if got != c.want {
			t.Errorf("MaskValue(%q, %q) = %q, want %q", c.name, c.value, got, c.want)
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("MaskValue(%q) leaks the password: %q", c.name, got)
		}
		if m := MaskProperties(map[string]string{c.name: c.value}); m[c.name] != c.want {
			t.Errorf("MaskProperties[%q] = %q, want %q", c.name, m[c.name], c.want)
		}
	}
	// Typed accessors never echo a secret value in their errors.
	p := NewProps(map[string]string{"jaas": jaas, "u": "http://a:hunter2@h"})
	for _, n := range []string{"jaas", "u"} {
		if _, err := p.Int(n, 0, 0, 1); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Int(%s): %v", n, err)
		}
	}
}
