package flightsql

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"

	"github.com/inlet-db/inlet/fe/server"
)

// Metadata commands (catalogs, schemas, tables) are answered by SHOW
// statements on the caller's session, so they list exactly what that user
// sees on the MySQL port.

func registerSQLInfo(b *flightsql.BaseServer) {
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:         "Inlet",
		flightsql.SqlInfoFlightSqlServerVersion:      server.VersionComment,
		flightsql.SqlInfoFlightSqlServerArrowVersion: "18",
		flightsql.SqlInfoFlightSqlServerReadOnly:     false,
		flightsql.SqlInfoFlightSqlServerSql:          true,
		flightsql.SqlInfoFlightSqlServerSubstrait:    false,
		flightsql.SqlInfoFlightSqlServerTransaction:  int32(flightsql.SqlTransactionNone),
		flightsql.SqlInfoFlightSqlServerCancel:       true,
		flightsql.SqlInfoDDLCatalog:                  true,
		flightsql.SqlInfoDDLSchema:                   true,
		flightsql.SqlInfoDDLTable:                    true,
		flightsql.SqlInfoIdentifierQuoteChar:         "`",
		flightsql.SqlInfoIdentifierCase:              int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoQuotedIdentifierCase:        int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoTransactionsSupported:       false,
	} {
		_ = b.RegisterSqlInfo(id, v)
	}
}

func (q *sqlServer) infoFor(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		FlightDescriptor: desc,
		Schema:           flight.SerializeSchema(schema, q.s.cfg.Mem),
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// rows runs a statement on ctx's session and returns its rows as text.
func (q *sqlServer) rows(ctx context.Context, text string) ([][]string, error) {
	c, err := connOf(ctx)
	if err != nil {
		return nil, err
	}
	b, err := q.runKept(ctx, c, text, nil)
	if err != nil {
		return nil, err
	}
	defer b.release()
	var out [][]string
	for _, r := range b.recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := make([]string, r.NumCols())
			for j := range row {
				col := r.Column(j)
				switch a := col.(type) {
				case *array.String:
					row[j] = a.Value(i)
				default:
					row[j] = col.ValueStr(i)
				}
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// likeRE compiles a SQL LIKE pattern (% and _, backslash escapes).
func likeRE(p *string) *regexp.Regexp {
	if p == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("(?is)^")
	esc := false
	for _, r := range *p {
		switch {
		case esc:
			b.WriteString(regexp.QuoteMeta(string(r)))
			esc = false
		case r == '\\':
			esc = true
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (q *sqlServer) catalogs(ctx context.Context, only *string) ([]string, error) {
	rows, err := q.rows(ctx, "SHOW CATALOGS")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		if len(r) > 1 && (only == nil || *only == r[1]) {
			out = append(out, r[1])
		}
	}
	return out, nil
}

// databases lists the databases of ctl the session sees (SHOW DATABASES
// hides those the user holds no privilege on), sorted.
func (q *sqlServer) databases(ctx context.Context, ctl string, re *regexp.Regexp) ([]string, error) {
	rows, err := q.rows(ctx, "SHOW DATABASES FROM "+quoteIdent(ctl))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		if matches(re, r[0]) {
			out = append(out, r[0])
		}
	}
	sort.Strings(out)
	return out, nil
}

// oneBatch sends a single record on a channel, as flightsql's DoGet takes.
func oneBatch(rec arrow.RecordBatch) <-chan flight.StreamChunk {
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return ch
}

func (q *sqlServer) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.infoFor(desc, schema_ref.Catalogs), nil
}

func (q *sqlServer) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	cats, err := q.catalogs(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewRecordBuilder(q.s.cfg.Mem, schema_ref.Catalogs)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(cats, nil)
	return schema_ref.Catalogs, oneBatch(b.NewRecordBatch()), nil
}

func (q *sqlServer) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.infoFor(desc, schema_ref.DBSchemas), nil
}

func (q *sqlServer) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	cats, err := q.catalogs(ctx, cmd.GetCatalog())
	if err != nil {
		return nil, nil, err
	}
	re := likeRE(cmd.GetDBSchemaFilterPattern())
	b := array.NewRecordBuilder(q.s.cfg.Mem, schema_ref.DBSchemas)
	defer b.Release()
	for _, ctl := range cats {
		dbs, err := q.databases(ctx, ctl, re)
		if err != nil {
			return nil, nil, err
		}
		for _, db := range dbs {
			b.Field(0).(*array.StringBuilder).Append(ctl)
			b.Field(1).(*array.StringBuilder).Append(db)
		}
	}
	return schema_ref.DBSchemas, oneBatch(b.NewRecordBatch()), nil
}

func (q *sqlServer) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	s := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		s = schema_ref.TablesWithIncludedSchema
	}
	return q.infoFor(desc, s), nil
}

func (q *sqlServer) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	cats, err := q.catalogs(ctx, cmd.GetCatalog())
	if err != nil {
		return nil, nil, err
	}
	dbRE, tblRE := likeRE(cmd.GetDBSchemaFilterPattern()), likeRE(cmd.GetTableNameFilterPattern())
	types := map[string]bool{}
	for _, t := range cmd.GetTableTypes() {
		types[strings.ToUpper(t)] = true
	}
	s := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		s = schema_ref.TablesWithIncludedSchema
	}
	b := array.NewRecordBuilder(q.s.cfg.Mem, s)
	defer b.Release()
	for _, ctl := range cats {
		dbs, err := q.databases(ctx, ctl, dbRE)
		if err != nil {
			return nil, nil, err
		}
		for _, db := range dbs {
			rows, err := q.rows(ctx, "SHOW FULL TABLES FROM "+quoteIdent(ctl)+"."+quoteIdent(db))
			if err != nil {
				return nil, nil, err
			}
			for _, r := range rows {
				typ := tableType(r[1])
				if !matches(tblRE, r[0]) || (len(types) > 0 && !types[typ]) {
					continue
				}
				if cmd.GetIncludeSchema() {
					sc, err := q.tableSchema(ctx, ctl, db, r[0])
					if err != nil {
						return nil, nil, err
					}
					b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(sc, q.s.cfg.Mem))
				}
				b.Field(0).(*array.StringBuilder).Append(ctl)
				b.Field(1).(*array.StringBuilder).Append(db)
				b.Field(2).(*array.StringBuilder).Append(r[0])
				b.Field(3).(*array.StringBuilder).Append(typ)
			}
		}
	}
	return s, oneBatch(b.NewRecordBatch()), nil
}

// tableType maps information_schema's TABLE_TYPE to Flight SQL's names.
func tableType(t string) string {
	switch strings.ToUpper(t) {
	case "BASE TABLE":
		return "TABLE"
	case "":
		return "TABLE"
	}
	return strings.ToUpper(t)
}

// tableSchema is the Arrow schema a query of the whole table returns.
func (q *sqlServer) tableSchema(ctx context.Context, ctl, db, tbl string) (*arrow.Schema, error) {
	c, err := connOf(ctx)
	if err != nil {
		return nil, err
	}
	b, err := q.runKept(ctx, c, "SELECT * FROM "+quoteIdent(ctl)+"."+quoteIdent(db)+"."+quoteIdent(tbl)+" LIMIT 0", nil)
	if err != nil {
		return nil, err
	}
	defer b.release()
	return b.schema, nil
}

var tableTypes = []string{"SYSTEM VIEW", "TABLE", "VIEW"}

func (q *sqlServer) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.infoFor(desc, schema_ref.TableTypes), nil
}

func (q *sqlServer) DoGetTableTypes(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(q.s.cfg.Mem, schema_ref.TableTypes)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(tableTypes, nil)
	return schema_ref.TableTypes, oneBatch(b.NewRecordBatch()), nil
}
