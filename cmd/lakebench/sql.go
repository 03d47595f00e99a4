package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/scan/flightsrv"
)

// The --sql mode: the same table read through the whole SQL path, as a user
// reads it: a MySQL client (go-sql-driver/mysql) sends the query to an FE
// with a type=paimon catalog over the table's warehouse, the FE plans it
// and runs its fragments on a BE in this process behind the dispatcher (as
// cmd/fe does without --be), and the answer comes back over the wire.

const (
	sqlCatalog = "lake"
	sqlDB      = "bench"
	sqlTable   = "t"
)

// sqlTableDir is where --sql keeps the table: inside a warehouse
// (<warehouse>/<db>.db/<table>), so a paimon catalog can name it.
func sqlTableDir(dir string, rows int64, files int) string {
	return filepath.Join(dir, fmt.Sprintf("wh_%d_%d", rows, files), sqlDB+".db", sqlTable)
}

// sqlText is q's SQL over the catalog's table.
func sqlText(q *query) string {
	t := sqlCatalog + "." + sqlDB + "." + sqlTable
	switch q.name {
	case "count(*), sum(v)":
		return "SELECT count(*), sum(v) FROM " + t
	case "count(*), sum(id)":
		return "SELECT count(*), sum(id) FROM " + t
	case "all five columns":
		return "SELECT count(*), sum(id), sum(k), sum(v), sum(length(s)), max(ts) FROM " + t
	case "sum(v) WHERE k < 100":
		return "SELECT sum(v) FROM " + t + " WHERE k < 100"
	}
	return ""
}

type sqlSession struct {
	fe    *server.FE
	be    *scan.Executor
	db    *sql.DB
	meta  string
	grpc  *grpc.Server
	fback *dispatch.FlightBackend
}

// flightSecret is the cluster secret between this process's FE and its
// Flight-served BE; both ends are this process.
const flightSecret = "lakebench-secret"

func startSQL(ctx context.Context, dir string, threads int, viaFlight bool) (*sqlSession, error) {
	meta, err := os.MkdirTemp("", "lakebench-meta-")
	if err != nil {
		return nil, err
	}
	s := &sqlSession{meta: meta}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.be = scan.NewExecutor(scan.Config{Name: "lakebench-be", Logger: log})
	backend := dispatch.BackendFunc("local", s.be.Execute)
	if viaFlight {
		// The BE behind Arrow Flight on loopback, as a BE in its own
		// process (cmd/be) is reached: batches are serialized and copied.
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.close()
			return nil, err
		}
		fs, err := flightsrv.New(flightsrv.Config{Executor: s.be, Secret: flightSecret, Mem: memory.DefaultAllocator, ErrorCode: scan.ErrorCode, Logger: log})
		if err != nil {
			lis.Close()
			s.close()
			return nil, err
		}
		s.grpc = fs.NewGRPCServer()
		go func() { _ = s.grpc.Serve(lis) }()
		s.fback = dispatch.NewFlightBackend(lis.Addr().String(), flightSecret)
		backend = s.fback
	}
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{backend},
		Classify: scan.ErrorCode, Logger: log})
	s.fe, err = server.Start(ctx, server.Options{QueryAddr: "127.0.0.1:0", MetaDir: meta, Mem: memory.DefaultAllocator,
		Logger: log, Types: []catalog.Type{paimon.Type()}, Runner: disp})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("start the FE: %w", err)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", s.fe.Addr().String()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		s.close()
		return nil, err
	}
	s.db = sql.OpenDB(conn)
	s.db.SetMaxOpenConns(1)
	wh := filepath.Dir(filepath.Dir(dir))
	for _, stmt := range []string{
		fmt.Sprintf("CREATE CATALOG %s PROPERTIES ('type'='paimon', 'warehouse'='%s')", sqlCatalog, wh),
		fmt.Sprintf("SET parallel_pipeline_task_num = %d", threads),
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil && stmt[0] == 'C' {
			s.close()
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return s, nil
}

func (s *sqlSession) close() {
	if s.db != nil {
		s.db.Close()
	}
	if s.fe != nil {
		s.fe.Close()
	}
	if s.fback != nil {
		s.fback.Close()
	}
	if s.grpc != nil {
		s.grpc.Stop()
	}
	if s.be != nil {
		s.be.Close()
	}
	os.RemoveAll(s.meta)
}

// run sends q and renders its one row as the in-process reader renders
// its answers (integers in decimal, doubles in the shortest form, a
// timestamp as microseconds since the epoch), so both check against want.
func (s *sqlSession) run(ctx context.Context, q *query) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, sqlText(q))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		if out != nil {
			return nil, fmt.Errorf("more than one row")
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = make([]string, len(cols))
		for i, v := range vals {
			out[i] = sqlValue(v)
		}
	}
	return out, rows.Err()
}

func sqlValue(v sql.NullString) string {
	if !v.Valid {
		return "NULL"
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999", v.String); err == nil {
		return fmtI(t.UnixMicro())
	}
	if _, err := strconv.ParseInt(v.String, 10, 64); err == nil {
		return v.String
	}
	if f, err := strconv.ParseFloat(v.String, 64); err == nil && !math.IsInf(f, 0) {
		return fmtF(f)
	}
	return v.String
}
