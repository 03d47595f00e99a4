// Package sql is Inlet's hand-written lexer, parser and syntax tree for the
// Doris dialect of SQL that MySQL clients send to the FE.
//
// Parse turns one statement into a Statement (ParseAll a script, ParseExpr an
// expression). The tree is small and planner-oriented: object names are Name
// values of 1 to 3 parts ([ctl db tbl]) kept as written, qualified columns and
// struct field paths are both ColumnRef paths for the binder to resolve, and
// SET_VAR hints are a map on the statement. The package never looks at a
// catalog: whether a name, function or type exists is fe/bind's question.
//
// What must stay true:
//
//  1. Parse never panics and never loops: every loop consumes a token, and
//     nesting (expressions, subqueries, joins, types) is capped at maxDepth.
//     FuzzParse checks both.
//  2. Round trip: for every tree t that Parse returns, Parse(t.String())
//     returns a tree equal to t. The printer shares the precedence table with
//     the parser (exprPrec) so parentheses appear exactly where they must.
//  3. Every syntax error is a *SyntaxError carrying the byte offset, line and
//     column of the offending token; errors.Is(err, ErrSyntax) holds, and the
//     wire layer maps it to MySQL error 1064 / SQLSTATE 42000. Constructs we
//     recognise but do not support (PARTITION BY in CREATE TABLE, NATURAL JOIN,
//     named windows, ...) are syntax errors that say "not supported".
//  4. Standard library only; no package state beyond read-only keyword tables.
//
// Precedence follows MySQL: OR/||, XOR, AND/&&, NOT, BETWEEN, comparisons (=
// <=> != < <= > >= IS LIKE REGEXP IN), |, &, << >>, + -, * / DIV % MOD, ^,
// unary - + ~ !. "--" always starts a comment, as in Doris.
//
// A Parser value does not exist: Parse is a pure function and safe for
// concurrent use.
package sql
