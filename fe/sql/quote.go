package sql

// QuoteIdent returns name as it must be written in a statement: unchanged
// when it is a plain unreserved word, otherwise in backquotes with inner
// backquotes doubled. Use it when generating SQL text (SHOW CREATE ...) so the
// text parses back to the same name.
func QuoteIdent(name string) string { return quoteIdent(name) }

// QuoteString returns s as a single-quoted SQL string literal with MySQL
// backslash escapes, which Parse decodes back to s.
func QuoteString(s string) string { return quoteString(s) }
