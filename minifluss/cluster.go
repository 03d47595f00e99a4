package minifluss

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Config describes an emulated cluster. The zero value of every field but
// DataDir means its default.
type Config struct {
	// DataDir holds the persisted state (meta.json, tablet data, remote tier
	// by default). Required. Restarting on the same DataDir keeps tables and data.
	DataDir string
	// TabletServers is the number of tablet servers (ids 0..n-1); default 3.
	TabletServers int
	// Host is the address every listener binds and advertises; default 127.0.0.1.
	Host string
	// Listeners, one port per server each; default one PLAINTEXT listener "CLIENT".
	Listeners []Listener
	// Users are the SASL PLAIN accounts (user → password) of SASL listeners.
	Users map[string]string
	// RemoteDataDir is the remote tier root (remote.data.dir); default DataDir/remote.
	RemoteDataDir string
	// DatalakeFormat is the cluster's datalake.format ("paimon", ...). When set,
	// the coordinator copies it into every new table's properties, as Fluss does.
	DatalakeFormat string
	// DefaultBucketNumber is default.bucket.number; default 1.
	DefaultBucketNumber int
	// MaxFrameBytes caps request frames; default 100 MB.
	MaxFrameBytes int
	// Logger receives connection-level problems; default discards.
	Logger *slog.Logger
	// Now is the clock for commit timestamps and creation times; default time.Now.
	Now func() time.Time
	// Lake configures the emulated Paimon lake and tiering (lake.go); the
	// zero value means no lake.
	Lake LakeConfig
}

// Listener is one named endpoint on every server (Fluss bind.listeners).
type Listener struct {
	Name string
	// SASL makes the listener require SASL PLAIN (Config.Users) before any
	// request other than ApiVersions and Authenticate.
	SASL bool
	// Ports optionally fixes the ports: [coordinator, tablet 0, tablet 1, ...].
	// Missing or zero entries mean any free port.
	Ports []int
}

func (c *Config) withDefaults() (Config, error) {
	o := *c
	if o.DataDir == "" {
		return o, errors.New("minifluss: Config.DataDir is required")
	}
	if o.TabletServers == 0 {
		o.TabletServers = 3
	}
	if o.TabletServers < 0 || o.TabletServers > 64 {
		return o, fmt.Errorf("minifluss: Config.TabletServers %d outside [1, 64]", o.TabletServers)
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if len(o.Listeners) == 0 {
		o.Listeners = []Listener{{Name: "CLIENT"}}
	}
	seen := map[string]bool{}
	for _, l := range o.Listeners {
		if l.Name == "" || seen[l.Name] {
			return o, fmt.Errorf("minifluss: listener names must be non-empty and unique, got %q", l.Name)
		}
		seen[l.Name] = true
	}
	if o.RemoteDataDir == "" {
		o.RemoteDataDir = filepath.Join(o.DataDir, "remote")
	}
	if o.DefaultBucketNumber == 0 {
		o.DefaultBucketNumber = 1
	}
	if o.MaxFrameBytes == 0 {
		o.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Cluster is a running emulated Fluss cluster: one coordinator and N tablet
// servers in this process, each with its own port per listener. All methods
// are safe for concurrent use. State changes (DDL, writes, retention) are
// serialised by one lock; RPC reads take the same lock briefly.
type Cluster struct {
	cfg Config

	mu       sync.Mutex
	cat      *catalogState
	buckets  map[bucketKey]*bucketData
	scanners map[string]*kvScanner
	changed  chan struct{} // closed and replaced whenever a log grows
	done     chan struct{} // closed by Close: parked fetches and delays return
	closed   bool
	faults   faultState
	nextScan int64
	// filterSkipped counts the batches filtered fetches left out.
	filterSkipped int64

	servers []*server // [0] coordinator, then tablet servers by id
	wg      sync.WaitGroup

	lake *lakeRuntime // tiering state (lake.go)
}

type bucketKey struct {
	table     int64
	partition int64 // -1 when not partitioned
	bucket    int32
}

type bucketData struct {
	log *bucketLog
	kv  *bucketKV // nil for log tables
}

func partKey(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// Start opens (or creates) the cluster state in cfg.DataDir and starts serving
// on loopback ports. Close stops it. ctx bounds only the start-up.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	o, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("minifluss: data dir: %w", err)
	}
	cat, err := loadCatalog(o.DataDir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: o, cat: cat, buckets: map[bucketKey]*bucketData{}, scanners: map[string]*kvScanner{}, changed: make(chan struct{}), done: make(chan struct{})}
	if c.lake, err = newLakeRuntime(o.Lake); err != nil {
		return nil, err
	}
	// Leaders pointing at servers that no longer exist (fewer tablet servers
	// than last time) are moved back into range.
	c.mu.Lock()
	c.repairLeaders()
	c.mu.Unlock()
	for i := 0; i <= o.TabletServers; i++ {
		if err := ctx.Err(); err != nil {
			c.Close()
			return nil, err
		}
		s := &server{c: c, coordinator: i == 0, id: int32(i - 1), conns: map[*conn]struct{}{}}
		if s.coordinator {
			s.id = 0
		}
		for _, l := range o.Listeners {
			port := 0
			if i < len(l.Ports) {
				port = l.Ports[i]
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(port)))
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("minifluss: listen %s for %s: %w", l.Name, s.name(), err)
			}
			s.listeners = append(s.listeners, &listener{cfg: l, ln: ln, port: int32(ln.Addr().(*net.TCPAddr).Port)})
		}
		c.servers = append(c.servers, s)
	}
	c.lake.start(c)
	for _, s := range c.servers {
		for _, l := range s.listeners {
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				s.serve(l)
			}()
		}
	}
	return c, nil
}

// BootstrapAddr is the coordinator's "host:port" on the first listener, the
// value for bootstrap.servers.
func (c *Cluster) BootstrapAddr() string { return c.ListenerAddr(c.cfg.Listeners[0].Name) }

// ListenerAddr is the coordinator's address on the named listener, or "".
func (c *Cluster) ListenerAddr(name string) string {
	return c.ServerAddr(-1, name)
}

// ServerAddr is the address of tablet server id (or the coordinator when id
// is -1) on the named listener, or "".
func (c *Cluster) ServerAddr(id int32, listenerName string) string {
	idx := int(id) + 1
	if idx < 0 || idx >= len(c.servers) {
		return ""
	}
	for _, l := range c.servers[idx].listeners {
		if l.cfg.Name == listenerName {
			return net.JoinHostPort(c.cfg.Host, strconv.Itoa(int(l.port)))
		}
	}
	return ""
}

// TabletServers is the number of tablet servers.
func (c *Cluster) TabletServers() int { return c.cfg.TabletServers }

// DataDir is the directory holding the persisted state.
func (c *Cluster) DataDir() string { return c.cfg.DataDir }

// RemoteDataDir is the remote tier root (remote.data.dir).
func (c *Cluster) RemoteDataDir() string { return c.cfg.RemoteDataDir }

// Close stops every listener and connection and flushes the state. It is
// safe to call more than once.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.done)
	c.mu.Unlock()
	c.lake.stop()
	for _, s := range c.servers {
		s.shutdown()
	}
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, b := range c.buckets {
		if err := b.log.close(); err != nil && first == nil {
			first = err
		}
		if b.kv != nil {
			if err := b.kv.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	c.buckets = map[bucketKey]*bucketData{}
	return first
}

func (c *Cluster) now() int64 { return c.cfg.Now().UnixMilli() }

// notifyLocked wakes delayed fetches; called with c.mu held after a log grows.
func (c *Cluster) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Cluster) persistLocked() error { return c.cat.save(c.cfg.DataDir) }

func (c *Cluster) tabletDir(k bucketKey) string {
	p := "np"
	if k.partition >= 0 {
		p = "p" + strconv.FormatInt(k.partition, 10)
	}
	return filepath.Join(c.cfg.DataDir, "tablets", strconv.FormatInt(k.table, 10), p, strconv.Itoa(int(k.bucket)))
}

// bucketLocked opens (lazily) the storage of a bucket.
func (c *Cluster) bucketLocked(t *table, partID *int64, bucket int32) (*bucketData, error) {
	k := bucketKey{t.ID, partKey(partID), bucket}
	if b, ok := c.buckets[k]; ok {
		return b, nil
	}
	if c.closed {
		return nil, errors.New("minifluss: cluster is closed")
	}
	dir := c.tabletDir(k)
	l, err := openBucketLog(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	b := &bucketData{log: l}
	if t.isPK() {
		kv, err := openBucketKV(filepath.Join(dir, "kv"))
		if err != nil {
			l.close()
			return nil, err
		}
		b.kv = kv
		if err := b.loadSnapshots(dir); err != nil {
			return nil, err
		}
	}
	c.buckets[k] = b
	return b, nil
}

// dropBucketsLocked closes and deletes the storage of a table (or of one of
// its partitions when part is non-nil).
func (c *Cluster) dropBucketsLocked(t *table, part *int64) {
	for k, b := range c.buckets {
		if k.table == t.ID && (part == nil || k.partition == *part) {
			b.log.close()
			if b.kv != nil {
				b.kv.close()
			}
			delete(c.buckets, k)
		}
	}
	dir := filepath.Join(c.cfg.DataDir, "tablets", strconv.FormatInt(t.ID, 10))
	if part != nil {
		dir = filepath.Join(dir, "p"+strconv.FormatInt(*part, 10))
	}
	os.RemoveAll(dir)
}

// assignLeaders spreads the buckets of a new table or partition over the
// tablet servers round-robin.
func (c *Cluster) assignLeaders(seed int64, n int32) []bucketLeader {
	out := make([]bucketLeader, n)
	for b := range out {
		out[b] = bucketLeader{Leader: int32((seed + int64(b)) % int64(c.cfg.TabletServers))}
	}
	return out
}

func (c *Cluster) repairLeaders() {
	fix := func(ls []bucketLeader) {
		for i := range ls {
			if ls[i].Leader >= int32(c.cfg.TabletServers) || ls[i].Leader < 0 {
				ls[i].Leader = int32(i % c.cfg.TabletServers)
				ls[i].Epoch++
			}
		}
	}
	for _, d := range c.cat.Databases {
		for _, t := range d.Tables {
			fix(t.Leaders)
			for _, p := range t.Partitions {
				fix(p.Leaders)
			}
		}
	}
}
