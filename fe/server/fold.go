package server

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/vars"
)

// foldEnv is the environment the binder folds constant expressions in: the
// statement's allocator and the session time zone, the same ones the rows
// are evaluated with, so a folded value is the value evaluation would give.
// A time zone that does not parse leaves folding off (the statement then
// reports it where it always did).
func (s *Session) foldEnv(v *vars.Session) *expr.Env {
	env, err := s.env(v)
	if err != nil {
		return nil
	}
	return env
}
