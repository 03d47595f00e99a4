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
//     returns a tree equal to t (unless t is so close to maxDepth that the
//     parentheses printing adds exceed it). The printer shares the precedence table with
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
// What parses (see testdata/*.txt for every form with its tree):
//
//   - Queries: WITH [RECURSIVE] CTEs; SELECT [DISTINCT] with /*+ SET_VAR(...) */
//     hints, "*", "t.*", "* EXCEPT (cols)", aliases with or without AS; FROM
//     with 1-3 part names, backquoted names (`tbl$lake`), derived tables with
//     column aliases, [INNER|LEFT|RIGHT|FULL [OUTER]|CROSS] JOIN, Doris
//     LEFT/RIGHT SEMI/ANTI JOIN, comma joins, ON/USING, parenthesized joins;
//     WHERE, GROUP BY, HAVING, ORDER BY ... [ASC|DESC] [NULLS FIRST|LAST],
//     LIMIT n [OFFSET m] and LIMIT m, n; UNION [ALL|DISTINCT], INTERSECT,
//     EXCEPT/MINUS with parenthesized operands.
//   - Expressions: literals (numbers, both string quote styles with MySQL
//     escapes, X'..'/0x.., TRUE/FALSE/NULL, DATE/TIMESTAMP/DATETIME '...',
//     INTERVAL n unit), all MySQL operators, IS [NOT] NULL/TRUE/FALSE/UNKNOWN,
//     [NOT] BETWEEN, [NOT] IN (list | subquery), [NOT] LIKE [ESCAPE],
//     [NOT] REGEXP/RLIKE, EXISTS, scalar subqueries, row values, CASE (both
//     forms), CAST(x AS type) with Doris types (DECIMAL(p,s), VARCHAR(n),
//     DATETIME(6), ARRAY<..>, MAP<..>, STRUCT<..>), function calls incl.
//     count(*), DISTINCT, ORDER BY/SEPARATOR in group_concat, window functions
//     with PARTITION BY/ORDER BY/ROWS|RANGE frames, EXTRACT, TRIM, SUBSTRING
//     and POSITION standard forms, a[i], m['k'], x[i].f, @@[scope.]var, @var, ?,
//     array literals [a, b] (the call array(a, b), printed back as written)
//     and Doris's lambdas x -> body and (x, y) -> body as function arguments.
//     Doris join hints (JOIN [broadcast] t) are accepted and dropped.
//   - Statements: SET (scoped assignments, NAMES, CHARACTER SET, TRANSACTION),
//     USE [ctl.]db, SWITCH, SHOW (CATALOGS, CREATE CATALOG/DATABASE/TABLE,
//     DATABASES, TABLES, TABLE STATUS, PARTITIONS, COLUMNS, VARIABLES, STATUS,
//     WARNINGS, ERRORS, COLLATION, CHARSET, ENGINES, PROCESSLIST, FRONTENDS,
//     BACKENDS), DESC[RIBE], EXPLAIN [VERBOSE|GRAPH|TREE], CREATE/ALTER/DROP/
//     REFRESH CATALOG, CREATE/DROP DATABASE, CREATE TABLE (Doris keys,
//     DISTRIBUTED BY, PROPERTIES, AS SELECT), CREATE [OR REPLACE] VIEW
//     [IF NOT EXISTS] name [(cols)] [COMMENT] AS query (view.go), SHOW
//     CREATE VIEW, DROP TABLE/VIEW, REFRESH
//     DATABASE/TABLE, INSERT INTO/OVERWRITE ... VALUES | SELECT, KILL,
//     BEGIN/START TRANSACTION/COMMIT/ROLLBACK; accounts (users.go): CREATE
//     USER [IF NOT EXISTS] 'u'@'h' [IDENTIFIED BY [PASSWORD] 'p'], DROP USER
//     [IF EXISTS], GRANT/REVOKE privs ON [ctl.]db.tbl (with *) TO/FROM user,
//     SET PASSWORD [FOR user] = PASSWORD('p') | '*HEX', SHOW [ALL] GRANTS
//     [FOR user]. String() of these prints the password (round trip); shown
//     statement text goes through MaskSecrets.
//
// Recognised but rejected with a "not supported" syntax error, so that no
// consumer can silently ignore them: CREATE TABLE ... PARTITION BY and index
// definitions, NATURAL/STRAIGHT_JOIN, QUALIFY, table PARTITION/TABLESAMPLE/FOR (time travel)/LATERAL VIEW,
// INSERT ... PARTITION. Not recognised at all (plain syntax errors): IS
// DISTINCT FROM, COLLATE, BINARY x, LIMIT ?, UPDATE/DELETE.
// MySQL /*! ... */ comments are skipped like any comment.
//
// GROUP BY ROLLUP(...), CUBE(...), GROUPING SETS (...) and "list WITH
// ROLLUP" parse into Select.Grouping and Select.Sets (indexes into GroupBy,
// which then holds each grouping expression once); as in Doris's grammar a
// grouping-set form is the whole GROUP BY clause. A WINDOW clause's named
// windows stay by name in the OVER clauses that use them (WindowSpec.Name);
// the binder resolves them.
//
// A Parser value does not exist: Parse is a pure function and safe for
// concurrent use.
package sql
