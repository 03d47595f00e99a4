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

}
