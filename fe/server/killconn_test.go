package server

import (
	"context"
	"fmt"
	"testing"
)

// TestKillConnection: KILL <id> (and KILL CONNECTION <id>) ends the
// connection as MySQL and Doris do, so the victim's next statement fails,
// while KILL QUERY <id> leaves it usable.
func TestKillConnection(t *testing.T) {
	f := startFE(t, t.TempDir(), "rootpw", false)
	admin := f.db("")
	ctx := context.Background()
	for _, tc := range []struct {
		stmt  string
		alive bool
	}{
		{"KILL %d", false},
		{"KILL CONNECTION %d", false},
		{"KILL QUERY %d", true},
	} {
		victim, err := f.db("").Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := victim.QueryRowContext(ctx, "SELECT connection_id()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		mustExec(t, admin, fmt.Sprintf(tc.stmt, id))
		var one int
		err = victim.QueryRowContext(ctx, "SELECT 1").Scan(&one)
		if alive := err == nil; alive != tc.alive {
			t.Errorf("%s: next statement of the victim: %v (want alive=%v)", tc.stmt, err, tc.alive)
		}
		victim.Close()
	}

	// A connection that has run nothing yet is killed the same way: it is
	// the one SHOW PROCESSLIST gains when it logs in.
	adminConn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer adminConn.Close()
	list := func() map[int64]bool {
		r, err := adminConn.QueryContext(ctx, "SHOW PROCESSLIST")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ids := map[int64]bool{}
		for r.Next() {
			var id int64
			var rest [8]any
			if err := r.Scan(&id, &rest[0], &rest[1], &rest[2], &rest[3], &rest[4], &rest[5], &rest[6], &rest[7]); err != nil {
				t.Fatal(err)
			}
			ids[id] = true
		}
		return ids
	}
	before := list()
	idle, err := f.db("").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := idle.PingContext(ctx); err != nil { // COM_PING: no statement
		t.Fatal(err)
	}
	var added []int64
	for id := range list() {
		if !before[id] {
			added = append(added, id)
		}
	}
	if len(added) != 1 {
		t.Fatalf("SHOW PROCESSLIST gained %v with one new connection", added)
	}
	if _, err := adminConn.ExecContext(ctx, fmt.Sprintf("KILL %d", added[0])); err != nil {
		t.Fatal(err)
	}
	if err := idle.PingContext(ctx); err == nil {
		t.Error("the killed idle connection still answers")
	}
}
