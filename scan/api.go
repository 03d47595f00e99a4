package scan

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Executor runs fragments on this BE. It is shared and safe for concurrent
// use; each Execute call owns its readers. Across calls it shares the Fluss
// clients (one per distinct client configuration, all on one connection
// pool), the heap admission queue, and, per query, the tail key sets of
// LAKE_SUPPRESS splits.
type Executor struct {
	cfg   Config
	log   *slog.Logger
	pool  *client.Pool
	owned bool // pool made here, closed by Close
	adm   *admission

	mu      sync.Mutex
	clients map[[32]byte]*client.Client
	queries map[string]*queryState
}

// Config configures an executor. The zero value is usable.
type Config struct {
	// Name names this BE in errors and profiles.
	Name string
	// Logger receives reader problems; nil discards. Client options (which
	// may hold secrets) are never logged.
	Logger *slog.Logger
	// Pool is the shared Fluss connection pool; nil makes one that Close
	// closes.
	Pool *client.Pool
	// FS builds the file system of a lake table (from its storage options)
	// and, with nil options, the one reading Fluss remote log segments; nil
	// means fileio.New.
	FS func(props map[string]string) (fileio.FS, error)
	// HeapBytes is the memory heavy readers are admitted against (the JVM
	// -Xmx of Doris); default 2 GiB.
	HeapBytes int64
	// HeapBudgetRatio is jni_scanner_heap_budget_ratio: the share of
	// HeapBytes open heavy readers may declare in total; default 0.5.
	// Changeable at runtime with SetHeapBudgetRatio.
	HeapBudgetRatio float64
	// HeapMaxWait is jni_scanner_heap_max_wait_ms: the longest a heavy reader
	// waits before it opens anyway; default 60 s. Changeable at runtime with
	// SetHeapMaxWait.
	HeapMaxWait time.Duration
	// Retries is how many times a range read that failed with a transient
	// Fluss error (leader moved, connection dropped, timeout) is retried when
	// that cannot duplicate rows; default 3.
	Retries int
}

// NewExecutor builds an executor.
func NewExecutor(cfg Config) *Executor {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.FS == nil {
		cfg.FS = func(p map[string]string) (fileio.FS, error) { return fileio.New(p) }
	}
	if cfg.HeapBytes <= 0 {
		cfg.HeapBytes = 2 << 30
	}
	if cfg.HeapBudgetRatio <= 0 {
		cfg.HeapBudgetRatio = 0.5
	}
	if cfg.HeapMaxWait <= 0 {
		cfg.HeapMaxWait = 60 * time.Second
	}
	if cfg.Retries <= 0 {
		cfg.Retries = 3
	}
	e := &Executor{cfg: cfg, log: cfg.Logger, pool: cfg.Pool, clients: map[[32]byte]*client.Client{}, queries: map[string]*queryState{}}
	if e.pool == nil {
		e.pool, e.owned = client.NewPool(cfg.Logger), true
	}
	e.adm = newAdmission(cfg.HeapBytes, cfg.HeapBudgetRatio, cfg.HeapMaxWait)
	return e
}

// SetHeapBudgetRatio changes jni_scanner_heap_budget_ratio at runtime.
func (e *Executor) SetHeapBudgetRatio(r float64) { e.adm.setRatio(r) }

// SetHeapMaxWait changes jni_scanner_heap_max_wait_ms at runtime.
func (e *Executor) SetHeapMaxWait(d time.Duration) { e.adm.setMaxWait(d) }

// PoolStats reports the shared Fluss connection pool.
func (e *Executor) PoolStats() client.PoolStats { return e.pool.Stats() }

// Close releases the clients (and the pool when the executor made it).
// Fragments still running fail.
func (e *Executor) Close() error {
	e.mu.Lock()
	cls := e.clients
	e.clients = map[[32]byte]*client.Client{}
	e.mu.Unlock()
	for _, c := range cls {
		c.Close()
	}
	if e.owned {
		return e.pool.Close()
	}
	return nil
}

// Execute starts a fragment and returns its stream. The stream's batches
// have the fragment's output schema; its Stats carry the profile counters.
// Cancelling ctx stops every reader of the fragment and frees its memory;
// so does releasing the stream before its end.
func (e *Executor) Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil fragment", ErrInvalid)
	}
	if mem == nil {
		return nil, fmt.Errorf("%w: fragment %s: nil allocator", ErrInvalid, f.GetQueryId())
	}
	fx, err := e.prepare(ctx, f, mem)
	if err != nil {
		return nil, err
	}
	st := e.start(ctx, fx)
	if pa := f.GetPartialAgg(); pa != nil {
		out, err := aggregated(ctx, st, pa, mem)
		if err != nil {
			st.Release()
			return nil, err
		}
		return out, nil
	}
	return st, nil
}

// clientFor returns the shared client of one client configuration.
func (e *Executor) clientFor(opts map[string]string) (*client.Client, error) {
	cfg, err := client.ConfigFromProperties(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: fluss client options: %w", ErrInvalid, err)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(opts[k]), opts[k])
	}
	var id [32]byte
	copy(id[:], h.Sum(nil))
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.clients[id]; ok {
		return c, nil
	}
	fsys, err := e.cfg.FS(nil)
	if err != nil {
		return nil, fmt.Errorf("fluss remote storage: %w", err)
	}
	c, err := client.New(cfg, client.WithPool(e.pool), client.WithLogger(e.log), client.WithFS(fsys))
	if err != nil {
		return nil, fmt.Errorf("%w: fluss client: %w", ErrInvalid, err)
	}
	e.clients[id] = c
	return c, nil
}
