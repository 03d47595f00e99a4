package scan_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// expectedAt replays each bucket's changelog [0, stop) with the raw client
// (not the executor) and returns the live "id|seq" rows.
func (hs *harness) expectedAt(p *plan) []string {
	t := hs.t
	ctx := context.Background()
	info, err := hs.cl.GetTableInfo(ctx, client.TablePath{Database: "db", Table: p.table})
	if err != nil {
		t.Fatal(err)
	}
	state := map[int32]int64{}
	for b := int32(0); b < p.info.Buckets; b++ {
		lr, err := info.LogRange(nil, b, 0, p.stops[pb("", b)])
		if err != nil {
			t.Fatal(err)
		}
		lr.Projection = []int{0, 1}
		rd, err := hs.cl.NewLogReader(ctx, lr, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			rec, cts := rd.RecordBatch(), rd.ChangeTypes()
			ids, seqs := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int64)
			for i, ct := range cts {
				switch ct {
				case record.Delete:
					delete(state, ids.Value(i))
				case record.UpdateBefore:
				default:
					state[ids.Value(i)] = seqs.Value(i)
				}
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	var out []string
	for id, seq := range state {
		out = append(out, fmt.Sprintf("%d|%d", id, seq))
	}
	slices.Sort(out)
	return out
}

// Union reads run while writers upsert and delete (each key carries a
// sequence number) and tiering keeps committing; every read must equal the
// table's state at the offsets fixed for it.
func TestLiveTieringUnionReads(t *testing.T) {
	hs := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := hs.c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "live", Buckets: 3, PrimaryKey: []string{"id"},
		Columns:    []minifluss.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "seq", Type: typemap.BigInt()}, {Name: "note", Type: typemap.String()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		t.Fatal(err)
	}
	var seqMu sync.Mutex
	seq := map[int]int64{}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for ctx.Err() == nil {
				var rows [][]any
				var dels [][]any
				seqMu.Lock()
				for i := 0; i < 10; i++ {
					k := rng.IntN(300)
					seq[k]++
					if rng.IntN(8) == 0 {
						dels = append(dels, []any{k})
					} else {
						rows = append(rows, []any{k, seq[k], fmt.Sprintf("w%d", w)})
					}
				}
				if len(rows) > 0 {
					if err := hs.c.Upsert(ctx, "db", "live", rows); err != nil && ctx.Err() == nil {
						t.Error(err)
					}
				}
				if len(dels) > 0 {
					if err := hs.c.Delete(ctx, "db", "live", dels); err != nil && ctx.Err() == nil {
						t.Error(err)
					}
				}
				seqMu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for round := 1; ctx.Err() == nil; round++ {
			if _, err := hs.c.TierLake(ctx, "db", "live"); err != nil && ctx.Err() == nil {
				t.Error(err)
			}
			if round%8 == 0 { // as a lake compaction job would: keeps merge inputs few
				if _, err := hs.c.CompactLake(ctx, "db", "live"); err != nil && ctx.Err() == nil {
					t.Error(err)
				}
			}
			time.Sleep(60 * time.Millisecond)
		}
	}()
	defer func() { cancel(); wg.Wait() }()

	budget := 25 * time.Second // INLET_LIVE_SECONDS raises it (the issue asks for hundreds of reads)
	if v, err := strconv.Atoi(os.Getenv("INLET_LIVE_SECONDS")); err == nil && v > 0 {
		budget = time.Duration(v) * time.Second
	}
	deadline := time.Now().Add(budget)
	reads, withLake := 0, 0
	for reads < 300 && time.Now().Before(deadline) {
		p := hs.planRead("live", nil)
		if !p.hasLake {
			// A PK_FULL read sees the bucket as of the read, not as of the
			// plan (KV state cannot be rewound): only union reads are pinned.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		f := hs.fragment(p, []int32{0, 1}, hs.unionPK(p))
		withLake++
		got, _ := hs.run(f)
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				t.Fatalf("read %d: row %s twice", reads, got[i])
			}
		}
		sameRows(t, fmt.Sprintf("read %d (lake snapshot %d)", reads, p.lakeSnap.SnapshotID), got, hs.expectedAt(p))
		reads++
	}
	t.Logf("%d union reads, %d with a lake snapshot", reads, withLake)
	// How many fit in the budget depends on the machine's load (CI runs
	// packages side by side on 2 cores: 30–70); every one was checked. A
	// handful still proves reads ran while tiering moved the lake.
	if reads < 10 {
		t.Fatalf("only %d reads (%d with a lake)", reads, withLake)
	}
}
