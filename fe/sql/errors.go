package sql

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSyntax is the kind of every error Parse returns for malformed input;
// the wire layer maps it to MySQL error 1064, SQLSTATE 42000.
var ErrSyntax = errors.New("syntax error")

// ErrEmptyQuery is returned for input that holds no statement (only blanks,
// comments or semicolons); MySQL answers it with error 1065, "Query was empty".
var ErrEmptyQuery = errors.New("query was empty")

// maxNameParts bounds a dotted object name: catalog.database.table.
const maxNameParts = 3

// maxDepth bounds the nesting of expressions, subqueries and joins so that a
// hostile statement cannot exhaust the goroutine stack.
const maxDepth = 500

// SyntaxError reports where and why a statement failed to parse.
// Error() gives the Doris-style detail message ("Syntax error in line 1 near
// 'FRM' (column 10): ..."); Doris prefixes it with "errCode = 2,
// detailMessage = " on the wire, which is the wire layer's business.
type SyntaxError struct {
	Pos  int    // byte offset into the statement text
	Line int    // 1-based line of Pos
	Col  int    // 1-based column (in bytes) of Pos within Line
	Near string // the text at Pos (up to the end of its line, at most 40 bytes); "" at end of input
	Msg  string // what was wrong, e.g. "expected FROM"
}

func (e *SyntaxError) Error() string {
	near := "end of input"
	if e.Near != "" {
		near = "'" + e.Near + "'"
	}
	return fmt.Sprintf("Syntax error in line %d near %s (column %d): %s", e.Line, near, e.Col, e.Msg)
}

// Is makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

func newSyntaxError(src string, pos int, format string, args ...any) *SyntaxError {
	if pos > len(src) {
		pos = len(src)
	}
	if pos < 0 {
		pos = 0
	}
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos + 1
	if k := strings.LastIndexByte(src[:pos], '\n'); k >= 0 {
		col = pos - k
	}
	near := src[pos:]
	if k := strings.IndexAny(near, "\r\n"); k >= 0 {
		near = near[:k]
	}
	if len(near) > 40 {
		near = near[:40]
		// Do not cut a UTF-8 sequence in half.
		for len(near) > 0 && near[len(near)-1]&0xC0 == 0x80 {
			near = near[:len(near)-1]
		}
		if len(near) > 0 && near[len(near)-1] >= 0xC0 {
			near = near[:len(near)-1]
		}
	}
	return &SyntaxError{Pos: pos, Line: line, Col: col, Near: near, Msg: fmt.Sprintf(format, args...)}
}
