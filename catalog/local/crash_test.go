package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

const crashEnv = "INLET_LOCAL_CRASH_CHILD"

// TestMain lets the crash test re-run this binary as the child that loads
// in a loop until it is killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv(crashEnv); dir != "" {
		start, _ := strconv.Atoi(os.Getenv(crashEnv + "_START"))
		crashChild(dir, start)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild loads batch i (three rows with k1 = i) into a DUPLICATE table
// under label c<i>, and a row per key into a UNIQUE table, printing "ACK i"
// once Load returned nil, forever.
func crashChild(dir string, start int) {
	mem := memory.NewGoAllocator()
	c, d := openDB(&testing.T{}, dir, mem, Options{CompactAt: 3, CheckpointEvery: 50})
	ctx := context.Background()
	tc := d.(catalog.TableCreator)
	if _, err := d.Table(ctx, "t"); err != nil {
		if _, err := tc.CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: ukSchema()}); err != nil {
			panic(err)
		}
		if _, err := tc.CreateTable(ctx, ukSpec("u", 3)); err != nil {
			panic(err)
		}
	}
	t, _ := d.Table(ctx, "t")
	u, _ := d.Table(ctx, "u")
	out := bufio.NewWriter(os.Stdout)
	for i := start; ; i++ {
		id := fmt.Sprint(i)
		r := rowsReader(&testing.T{}, mem, nil, []row{{id, "a", id, "x"}, {id, "b", id, "y"}, {id, "NULL", id, "z"}}, 2)
		_, err := t.(catalog.Loader).Load(ctx, r, catalog.LoadOptions{Label: "c" + id})
		r.Release()
		if err != nil {
			panic(err)
		}
		// UNIQUE: key (i mod 50, "k") rewritten with v = i; the latest wins.
		r = rowsReader(&testing.T{}, mem, nil, []row{{fmt.Sprint(i % 50), "k", id, "u"}}, 1)
		_, err = u.(catalog.Loader).Load(ctx, r, catalog.LoadOptions{Label: "u" + id})
		r.Release()
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(out, "ACK %d\n", i)
		out.Flush()
		_ = c
	}
}

// TestCrashKill9 kills a loading child process with SIGKILL, twice, and
// checks that every acknowledged load is there exactly once, that no load
// is there in part, and that replaying an acknowledged label changes
// nothing.
func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	acked := map[int]bool{}
	next := 0
	for round := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, fmt.Sprintf("%s_START=%d", crashEnv, next))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		deadline := time.Now().Add(time.Duration(300+round*200) * time.Millisecond)
		n := 0
		for sc.Scan() {
			var i int
			if _, err := fmt.Sscanf(sc.Text(), "ACK %d", &i); err == nil {
				acked[i] = true
				next = i + 1
				n++
			}
			if n > 20 && time.Now().After(deadline) {
				break
			}
		}
		cmd.Process.Kill() // SIGKILL: no deferred code, no Close
		// The child went on loading while this side stopped reading: its
		// acknowledgements still in the pipe count too (they were
		// acknowledged), and the next round must start after all of them,
		// or it reuses a committed label.
		for sc.Scan() {
			var i int
			if _, err := fmt.Sscanf(sc.Text(), "ACK %d", &i); err == nil {
				acked[i] = true
				next = max(next, i+1)
				n++
			}
		}
		cmd.Wait()
		if n == 0 {
			t.Fatalf("round %d: the child acknowledged nothing: %s", round, stderr.String())
		}
		// The child may have committed a load it had no time to
		// acknowledge: the next round starts after it.
		next += 5
	}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, d := openDB(t, dir, mem, Options{})
	defer c.Close()
	tb := mustTable(t, d, "t")
	perID := map[int]int{}
	for _, r := range scanRows(t, tb, mem) {
		id, _ := strconv.Atoi(strings.SplitN(r, "|", 2)[0])
		perID[id]++
	}
	for i := range acked {
		if perID[i] != 3 {
			t.Errorf("acknowledged load %d: %d rows, want 3", i, perID[i])
		}
	}
	for id, n := range perID {
		if n != 3 {
			t.Errorf("load %d is there in part: %d rows", id, n)
		}
	}
	maxAck := 0
	for i := range acked {
		maxAck = max(maxAck, i)
		_, err := load(t, tb, rowsReader(t, mem, nil, []row{{"-1", "a", "1", "x"}}, 1), catalog.LoadOptions{Label: fmt.Sprint("c", i)})
		var le *catalog.LabelExistsError
		if !errors.As(err, &le) || le.Status != "FINISHED" {
			t.Fatalf("replay of acknowledged label c%d: %v", i, err)
		}
	}
	if perID[-1] != 0 {
		t.Fatal("a replayed label added rows")
	}
	// UNIQUE: one row per key; every acknowledged key is there, holding a
	// value at least as new as its last acknowledged write. (Keys only an
	// unacknowledged commit wrote may be there too.)
	urows := scanRows(t, mustTable(t, d, "u"), mem)
	got := map[int]int{}
	for _, r := range urows {
		f := strings.Split(r, "|")
		k, _ := strconv.Atoi(f[0])
		v, _ := strconv.Atoi(f[2])
		if _, dup := got[k]; dup {
			t.Fatalf("unique key %d twice", k)
		}
		if v%50 != k {
			t.Errorf("unique key %d holds %d", k, v)
		}
		got[k] = v
	}
	lastAck := map[int]int{}
	for i := range acked {
		lastAck[i%50] = max(lastAck[i%50], i)
	}
	for k, last := range lastAck {
		if v, ok := got[k]; !ok || v < last {
			t.Errorf("unique key %d: holds %d (present %v), last acknowledged write was %d", k, v, ok, last)
		}
	}
	t.Logf("%d loads acknowledged over 2 kills (last %d)", len(acked), maxAck)
}
