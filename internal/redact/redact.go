package redact

import (
	"context"
	"log/slog"
	"strings"
)

// Masked replaces a hidden password (Doris's mask, as SHOW CREATE CATALOG
// prints it).
const Masked = "*XXX"

// URIPasswords replaces the password of every scheme://user:password@
// authority in s with Masked; s without one comes back unchanged.
func URIPasswords(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		k := strings.Index(rest, "://")
		if k < 0 {
			break
		}
		auth := rest[k+3:]
		// The authority ends at the path, query or fragment, or where the
		// text around the URI goes on (a quote or space in an error).
		end := strings.IndexAny(auth, "/?#\"' \t\n")
		if end < 0 {
			end = len(auth)
		}
		at := strings.LastIndexByte(auth[:end], '@')
		colon := -1
		if at >= 0 {
			colon = strings.IndexByte(auth[:at], ':')
		}
		b.WriteString(rest[:k+3])
		if colon < 0 {
			rest = auth
			continue
		}
		b.WriteString(auth[:colon+1])
		b.WriteString(Masked)
		rest = auth[at:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// Handler wraps h so every record's message and string, error and
// Stringer attribute values have their URI passwords masked.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ h slog.Handler }

func (r handler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, URIPasswords(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r handler) WithAttrs(as []slog.Attr) slog.Handler {
	m := make([]slog.Attr, len(as))
	for i, a := range as {
		m[i] = attr(a)
	}
	return handler{r.h.WithAttrs(m)}
}

func (r handler) WithGroup(name string) slog.Handler { return handler{r.h.WithGroup(name)} }

func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, URIPasswords(v.String()))
	case slog.KindGroup:
		g := v.Group()
		m := make([]any, len(g))
		for i, x := range g {
			m[i] = attr(x)
		}
		return slog.Group(a.Key, m...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, URIPasswords(x.Error()))
		case interface{ String() string }:
			return slog.String(a.Key, URIPasswords(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
