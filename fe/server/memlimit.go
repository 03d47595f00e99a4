package server

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// memLimitVar is the session variable that bounds what one statement may
// hold (Doris exec_mem_limit).
const memLimitVar = "exec_mem_limit"

// mem is the allocator of the running statement: its memory account, or
// the server's allocator outside a statement.
func (s *Session) mem() memory.Allocator {
	if s.limited != nil {
		return s.limited
	}
	return s.srv.cfg.Mem
}

// runLimited runs one statement under its own memory account. A refused
// allocation fails this statement alone: the panic the account raises is
// recovered here (after the statement's readers were released by their
// deferred Releases) and, since buffers being built when it unwound have no
// owner left to free them, they are swept back to the server's allocator.
func (s *Session) runLimited(ctx context.Context, stmt sql.Statement, w mysqlwire.ResultWriter) (err error) {
	limit := s.vars.Int(memLimitVar)
	if hv, herr := s.stmtVars(stmtHints(stmt)); herr == nil {
		limit = hv.Int(memLimitVar)
	}
	acct := memlimit.New(s.srv.cfg.Mem, limit, memLimitVar)
	s.limited = acct
	defer func() {
		s.limited = nil
		if errors.Is(err, memlimit.ErrExceeded) {
			if n := acct.Sweep(); n > 0 {
				s.srv.log.Debug("swept buffers of a query over its memory limit", "bytes", n)
			}
		}
		// Go memory charged by operators that unwound without refunding
		// it goes back to the process account.
		acct.Close()
		paceEnd(acct)
		statementEnded(acct.Peak())
	}()
	statementStarted()
	paceStart(acct)
	defer memlimit.Recover(&err)
	return s.run(ctx, stmt, w)
}
