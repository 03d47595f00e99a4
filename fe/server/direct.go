package server

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// directRunner is a Runner that can hand a fragment's parts to clients:
// dispatch.Dispatcher, when its BEs have Flight addresses and the cluster
// secret.
type directRunner interface {
	Direct(f *inletpb.Fragment, expiry time.Time) (addrs []string, tickets [][]byte, ok bool)
}

// DirectEndpoints plans the query text for Flight SQL's BE-direct
// endpoints (Doris's arrow_flight_sql "BE direct"): when the whole result
// is what the BEs send (physical.DirectFragment: a scan and nothing after
// it on the FE), its schema is the one the FE would send, and every part
// lands on a BE with a Flight address, it returns each BE's address and a
// ticket signed until the statement's query_timeout. ok false means the FE
// serves the result; err is a planning error (the FE's DoGet reports it
// the usual way). The statement is audited here, as planned: its rows
// are read from the BEs, so no row count is known to the FE.
func (s *Session) DirectEndpoints(ctx context.Context, text string, args []any) (addrs []string, tickets [][]byte, ok bool, err error) {
	dr, isDirect := s.srv.cfg.Runner.(directRunner)
	if !isDirect {
		return nil, nil, false, nil
	}
	stmt, err := sql.Parse(text)
	if err != nil {
		return nil, nil, false, nil
	}
	q, isQuery := stmt.(sql.Query)
	if !isQuery {
		return nil, nil, false, nil
	}
	if err := s.authorize(stmt); err != nil {
		return nil, nil, false, nil
	}
	v, err := s.stmtVars(stmtHints(stmt))
	if err != nil {
		return nil, nil, false, nil
	}
	if args != nil {
		s.args = bindArgs(args)
		defer func() { s.args = nil }()
	}
	st := s.beginStatement(text)
	defer s.endStatement(st, nil)
	p, op, _, err := s.planEstimated(ctx, q, v)
	if err != nil {
		return nil, nil, false, nil
	}
	f, _, found := physical.DirectFragment(op)
	if !found || len(f.GetOutputSchema()) == 0 {
		return nil, nil, false, nil
	}
	sent, err := flight.DeserializeSchema(f.GetOutputSchema(), s.srv.cfg.Mem)
	if err != nil || !sent.Equal(ResultSchema(p.Columns())) {
		// The FE would change the batches (names, zone-aware timestamps
		// shown as wall-clock time): it serves them.
		return nil, nil, false, nil
	}
	timeout := time.Duration(v.Int("query_timeout")) * time.Second
	if timeout <= 0 {
		timeout = time.Hour
	}
	addrs, tickets, ok = dr.Direct(f, s.srv.now().Add(timeout))
	if !ok || (f.GetLimit() >= 0 && len(addrs) > 1) {
		// Each BE would apply the LIMIT to its part alone.
		return nil, nil, false, nil
	}
	audit, _ := s.auditBegin("FLIGHT_SQL_BE_DIRECT", text, nil)
	audit.began(st, stmt)
	s.auditEnd(audit, nil)
	return addrs, tickets, true, nil
}
