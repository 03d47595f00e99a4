package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestURIPasswords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"open s3://AK:s3cr3t@bucket/wh/db: no such key", "open s3://AK:*XXX@bucket/wh/db: no such key"},
		{"'s3://AK:p@ss:w@rd@bucket/x'", "'s3://AK:*XXX@bucket/x'"},
		{"a s3://AK:pw@b and oss://u:v@h/p", "a s3://AK:*XXX@b and oss://u:*XXX@h/p"},
		{"s3://bucket/no/userinfo", "s3://bucket/no/userinfo"},
		{"s3://user@bucket/x", "s3://user@bucket/x"},
		{"no uri at all", "no uri at all"},
		{"jdbc:mysql://root:pw@127.0.0.1:3306/db", "jdbc:mysql://root:*XXX@127.0.0.1:3306/db"},
	} {
		if got := URIPasswords(c.in); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil))).With("catalog", "s3://a:one@b/")
	log.Info("open s3://a:two@b/x failed", "err", errors.New("read s3://a:three@b/y"), "path", "s3://a:four@b/z",
		slog.Group("g", "w", "s3://a:five@b/"))
	out := buf.String()
	for _, pw := range []string{"one", "two", "three", "four", "five"} {
		if strings.Contains(out, ":"+pw+"@") {
			t.Errorf("password %q logged: %s", pw, out)
		}
	}
	if strings.Count(out, Masked) != 5 {
		t.Errorf("want 5 masks: %s", out)
	}
}
