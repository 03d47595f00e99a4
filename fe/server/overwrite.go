package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/vars"
)

// checkInsertTarget refuses tables an INSERT (or INSERT OVERWRITE) cannot
// write, before the query is planned.
func checkInsertTarget(t catalog.Table, overwrite bool) error {
	if overwrite {
		if _, ok := t.(catalog.Overwriter); !ok {
			return errorf(errNotSupported, "table %s does not support INSERT OVERWRITE: only internal tables do", t.Name())
		}
		return nil
	}
	if _, ok := t.(catalog.Writable); !ok {
		return errorf(errNotSupported, "table %s is read only: INSERT is not supported", t.Name())
	}
	return nil
}

// insertOverwrite is INSERT OVERWRITE TABLE t [WITH LABEL l] ...: the rows
// of op replace the table's rows in one commit (catalog.Overwriter), so a
// reader sees the old rows or the new ones, and a failure leaves the old.
// The query may read t itself: its scan is a snapshot taken before the commit.
func (s *Session) insertOverwrite(ctx context.Context, t catalog.Table, op exec.Operator, target []int, v *vars.Session, label string, w mysqlwire.ResultWriter) error {
	l := &labelled{label: label, overwrite: true}
	rows, err := s.appendFrom(context.WithValue(ctx, labelKey{}, l), t, op, target, v)
	if err != nil {
		return err
	}
	res := mysqlwire.OKResult{AffectedRows: uint64(rows)}
	if label != "" {
		res.Info = fmt.Sprintf("{'label':'%s', 'status':'VISIBLE', 'txnId':'%d'}", strings.ReplaceAll(label, "'", "\\'"), l.txn)
	}
	return w.OK(res)
}

func (l *labelled) overwriteLoad(ctx context.Context, t catalog.Table, r array.RecordReader) (int64, error) {
	ow, ok := t.(catalog.Overwriter)
	if !ok {
		return 0, errorf(errNotSupported, "table %s does not support INSERT OVERWRITE: only internal tables do", t.Name())
	}
	res, err := ow.Overwrite(ctx, r, catalog.LoadOptions{Label: l.label})
	l.txn = res.TxnID
	return res.Rows, err
}
