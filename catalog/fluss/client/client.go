package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// TablePath names a Fluss table.
type TablePath struct {
	Database string
	Table    string
}

func (p TablePath) String() string { return p.Database + "." + p.Table }

func (p TablePath) pb() *flusspb.PbTablePath {
	return &flusspb.PbTablePath{DatabaseName: proto.String(p.Database), TableName: proto.String(p.Table)}
}

// TableBucket names one bucket of a table or of one of its partitions.
// Table is required: GET_METADATA finds bucket leaders by table path.
type TableBucket struct {
	Table       TablePath // used to (re)load bucket leaders
	TableID     int64
	PartitionID *int64 // nil for a non-partitioned table
	Bucket      int32
}

func (b TableBucket) String() string {
	if b.PartitionID != nil {
		return fmt.Sprintf("%s (table %d) partition %d bucket %d", b.Table, b.TableID, *b.PartitionID, b.Bucket)
	}
	return fmt.Sprintf("%s (table %d) bucket %d", b.Table, b.TableID, b.Bucket)
}

// ServerNode is one Fluss server as metadata describes it.
type ServerNode struct {
	ID   int32
	Host string
	Port int32
	Rack string
}

// Addr is host:port.
func (n ServerNode) Addr() string { return net.JoinHostPort(n.Host, strconv.Itoa(int(n.Port))) }

// Option configures a Client.
type Option func(*Client)

// WithPool makes the client use a shared connection pool (the BE shares one
// across catalogs and queries). The client does not close a pool it was given.
func WithPool(p *Pool) Option { return func(c *Client) { c.pool = p } }

// WithLogger sets the logger; nil discards.
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.log = l } }

// WithFS sets the file system used to read remote (archived) log segments.
func WithFS(fs fileio.FS) Option { return func(c *Client) { c.fs = fs } }

// Client talks to one Fluss cluster.
//
// Concurrency: a Client is shared. All methods are safe for concurrent use;
// requests from many goroutines are pipelined over the pooled connections.
// Readers and KV scans it returns belong to one goroutine each.
//
// Every method that may block takes a context first; cancelling it abandons
// the request (the connection stays usable). Bucket-level requests go to the
// bucket's leader; when a server answers NOT_LEADER_OR_FOLLOWER (or leader not
// available / unknown bucket), the client reloads the table's metadata and
// retries a few times before returning the error.
type Client struct {
	cfg     Config
	cfgKey  string
	pool    *Pool
	ownPool bool
	log     *slog.Logger
	fs      fileio.FS

	mu          sync.Mutex
	coordinator *ServerNode
	tablets     map[int32]ServerNode
	tables      map[TablePath]*tableMeta
	closed      bool

	schemaMu sync.Mutex
	schemas  map[schemaKey]*record.Schema // see schemas.go
}

type tableMeta struct {
	id        int64
	leaders   map[int32]int32           // bucket → leader node (non-partitioned)
	partLeads map[int64]map[int32]int32 // partition id → bucket → leader node
	partNames map[int64]string          // partition id → name
}

// leaderRetries bounds NOT_LEADER refresh-and-retry rounds.
const leaderRetries = 4

// New makes a client; it does not connect until the first request.
func New(cfg Config, opts ...Option) (*Client, error) {
	if len(cfg.BootstrapServers) == 0 {
		return nil, fmt.Errorf("%w: %s is required", ErrConfig, PropBootstrapServers)
	}
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, cfgKey: cfg.key(), tablets: map[int32]ServerNode{}, tables: map[TablePath]*tableMeta{}}
	for _, o := range opts {
		o(c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.pool == nil {
		c.pool = NewPool(c.log)
		c.ownPool = true
	}
	return c, nil
}

// Config returns the client's configuration (with defaults filled in).
func (c *Client) Config() Config { return c.cfg }

// PoolStats returns the counters of the client's pool.
func (c *Client) PoolStats() PoolStats { return c.pool.Stats() }

// Close releases the client; it closes the pool only if the client made it.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if c.ownPool {
		return c.pool.Close()
	}
	return nil
}

// callAddr sends one request to addr. A connection that breaks before the
// answer is retried once on a fresh connection: every request this client
// sends is a read (SCAN_KV continuations excepted, which use callAddrOnce).
func (c *Client) callAddr(ctx context.Context, addr string, key flussapi.APIKey, req, resp proto.Message) error {
	err := c.callAddrOnce(ctx, addr, key, req, resp)
	if err != nil && errors.Is(err, ErrConnection) && ctx.Err() == nil {
		c.log.Debug("fluss: retrying on a new connection", "server", addr, "api", key.String(), "err", err)
		err = c.callAddrOnce(ctx, addr, key, req, resp)
	}
	return err
}

func (c *Client) callAddrOnce(ctx context.Context, addr string, key flussapi.APIKey, req, resp proto.Message) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	cn, err := c.pool.get(ctx, c.cfg, c.cfgKey, addr)
	if err != nil {
		return err
	}
	defer cn.release()
	return cn.call(ctx, key, req, resp)
}

// callAny sends an admin request to the coordinator when known, else to the
// bootstrap servers in order until one answers at the transport level.
func (c *Client) callAny(ctx context.Context, key flussapi.APIKey, req, resp proto.Message) error {
	c.mu.Lock()
	var addrs []string
	if c.coordinator != nil {
		addrs = append(addrs, c.coordinator.Addr())
	}
	c.mu.Unlock()
	addrs = append(addrs, c.cfg.BootstrapServers...)
	var err error
	for _, a := range addrs {
		err = c.callAddr(ctx, a, key, req, resp)
		if err == nil || !errors.Is(err, ErrConnection) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// callCoordinator sends a coordinator-only request.
func (c *Client) callCoordinator(ctx context.Context, key flussapi.APIKey, req, resp proto.Message) error {
	c.mu.Lock()
	coord := c.coordinator
	c.mu.Unlock()
	if coord == nil {
		if _, err := c.refreshMetadata(ctx, nil); err != nil {
			return err
		}
		c.mu.Lock()
		coord = c.coordinator
		c.mu.Unlock()
		if coord == nil {
			return fmt.Errorf("%w: cluster metadata names no coordinator for %s", ErrProtocol, key)
		}
	}
	return c.callAddr(ctx, coord.Addr(), key, req, resp)
}

// Metadata is a snapshot of cluster metadata.
type Metadata struct {
	Coordinator *ServerNode
	Tablets     []ServerNode
	Tables      []TableMetadata
	Partitions  []PartitionMetadata
}

// TableMetadata is one table's entry in GET_METADATA.
type TableMetadata struct {
	Path          TablePath
	TableID       int64
	SchemaID      int32
	TableJSON     []byte
	Buckets       []BucketMetadata // empty for partitioned tables
	RemoteDataDir string
}

// PartitionMetadata is one partition's entry in GET_METADATA.
type PartitionMetadata struct {
	TableID int64
	Name    string
	ID      int64
	Buckets []BucketMetadata
}

// BucketMetadata says who leads a bucket; LeaderID is -1 while none is elected.
type BucketMetadata struct {
	Bucket   int32
	LeaderID int32
	Replicas []int32
}

// GetMetadata asks for the server list and the given tables (and the given
// partitions of them, by id). It refreshes the client's leader cache.
func (c *Client) GetMetadata(ctx context.Context, tables []TablePath, partitionIDs ...int64) (*Metadata, error) {
	return c.refreshMetadataParts(ctx, tables, partitionIDs)
}

func (c *Client) refreshMetadata(ctx context.Context, tables []TablePath) (*Metadata, error) {
	return c.refreshMetadataParts(ctx, tables, nil)
}

func (c *Client) refreshMetadataParts(ctx context.Context, tables []TablePath, partIDs []int64) (*Metadata, error) {
	req := &flusspb.MetadataRequest{PartitionsId: partIDs}
	for _, t := range tables {
		req.TablePath = append(req.TablePath, t.pb())
	}
	var resp flusspb.MetadataResponse
	if err := c.callAny(ctx, flussapi.GetMetadata, req, &resp); err != nil {
		return nil, fmt.Errorf("fluss: GET_METADATA: %w", err)
	}
	md := &Metadata{}
	if n := resp.GetCoordinatorServer(); n != nil {
		s := nodeOf(n)
		md.Coordinator = &s
	}
	for _, n := range resp.GetTabletServers() {
		md.Tablets = append(md.Tablets, nodeOf(n))
	}
	idToPath := map[int64]TablePath{}
	for _, t := range resp.GetTableMetadata() {
		tm := TableMetadata{
			Path:          TablePath{t.GetTablePath().GetDatabaseName(), t.GetTablePath().GetTableName()},
			TableID:       t.GetTableId(),
			SchemaID:      t.GetSchemaId(),
			TableJSON:     t.GetTableJson(),
			Buckets:       bucketsOf(t.GetBucketMetadata()),
			RemoteDataDir: t.GetRemoteDataDir(),
		}
		idToPath[tm.TableID] = tm.Path
		md.Tables = append(md.Tables, tm)
	}
	for _, p := range resp.GetPartitionMetadata() {
		md.Partitions = append(md.Partitions, PartitionMetadata{
			TableID: p.GetTableId(), Name: p.GetPartitionName(), ID: p.GetPartitionId(), Buckets: bucketsOf(p.GetBucketMetadata()),
		})
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if md.Coordinator != nil {
		c.coordinator = md.Coordinator
	}
	for _, n := range md.Tablets {
		c.tablets[n.ID] = n
	}
	for _, t := range md.Tables {
		m := c.tables[t.Path]
		if m == nil || m.id != t.TableID {
			m = &tableMeta{id: t.TableID, partLeads: map[int64]map[int32]int32{}, partNames: map[int64]string{}}
			c.tables[t.Path] = m
		}
		m.leaders = map[int32]int32{}
		for _, b := range t.Buckets {
			m.leaders[b.Bucket] = b.LeaderID
		}
	}
	for _, p := range md.Partitions {
		path, ok := idToPath[p.TableID]
		if !ok {
			continue
		}
		m := c.tables[path]
		l := map[int32]int32{}
		for _, b := range p.Buckets {
			l[b.Bucket] = b.LeaderID
		}
		m.partLeads[p.ID] = l
		m.partNames[p.ID] = p.Name
	}
	return md, nil
}

func nodeOf(n *flusspb.PbServerNode) ServerNode {
	return ServerNode{ID: n.GetNodeId(), Host: n.GetHost(), Port: n.GetPort(), Rack: n.GetRack()}
}

func bucketsOf(bs []*flusspb.PbBucketMetadata) []BucketMetadata {
	out := make([]BucketMetadata, 0, len(bs))
	for _, b := range bs {
		lead := int32(-1)
		if b.LeaderId != nil {
			lead = b.GetLeaderId()
		}
		out = append(out, BucketMetadata{Bucket: b.GetBucketId(), LeaderID: lead, Replicas: b.GetReplicaId()})
	}
	return out
}

// tableID returns the id of a table, loading metadata if needed.
func (c *Client) tableID(ctx context.Context, t TablePath) (int64, error) {
	c.mu.Lock()
	m := c.tables[t]
	c.mu.Unlock()
	if m != nil {
		return m.id, nil
	}
	if _, err := c.refreshMetadata(ctx, []TablePath{t}); err != nil {
		return 0, fmt.Errorf("fluss: table %s: %w", t, err)
	}
	c.mu.Lock()
	m = c.tables[t]
	c.mu.Unlock()
	if m == nil {
		return 0, fmt.Errorf("fluss: table %s: %w", t, &Error{Code: flussapi.TableNotExist, Message: "not in cluster metadata"})
	}
	return m.id, nil
}

// leaderAddr returns the address of the leader of b, loading metadata when it
// is not cached (or when refresh is set).
func (c *Client) leaderAddr(ctx context.Context, b TableBucket, refresh bool) (string, error) {
	for attempt := 0; attempt < 2; attempt++ {
		if refresh || attempt > 0 {
			var parts []int64
			if b.PartitionID != nil {
				parts = []int64{*b.PartitionID}
			}
			if _, err := c.refreshMetadataParts(ctx, []TablePath{b.Table}, parts); err != nil {
				return "", fmt.Errorf("fluss: leader of %s: %w", b, err)
			}
		}
		c.mu.Lock()
		lead, ok := int32(-1), false
		if m := c.tables[b.Table]; m != nil {
			if b.PartitionID == nil {
				lead, ok = m.leaders[b.Bucket]
			} else if l := m.partLeads[*b.PartitionID]; l != nil {
				lead, ok = l[b.Bucket]
			}
		}
		node, known := c.tablets[lead]
		c.mu.Unlock()
		if ok && lead >= 0 && known {
			return node.Addr(), nil
		}
		if attempt == 1 || refresh {
			if ok && lead < 0 {
				return "", fmt.Errorf("fluss: %s: %w", b, &Error{Code: flussapi.LeaderNotAvailable, Message: "no leader elected"})
			}
			if ok && !known {
				return "", fmt.Errorf("%w: %s: leader %d is not among the tablet servers in metadata", ErrProtocol, b, lead)
			}
			return "", fmt.Errorf("fluss: %s: %w", b, &Error{Code: flussapi.UnknownTableOrBucket, Message: "bucket not in cluster metadata"})
		}
	}
	return "", fmt.Errorf("fluss: %s: no leader", b)
}

// callLeader sends a bucket-level request to b's leader; check extracts the
// per-bucket error from the decoded response (nil if none). On a not-leader
// kind of error (frame-level or per-bucket) it reloads metadata and retries.
func (c *Client) callLeader(ctx context.Context, b TableBucket, key flussapi.APIKey, req proto.Message, newResp func() proto.Message, check func(proto.Message) error) (proto.Message, string, error) {
	refresh := false
	var last error
	backoff := 20 * time.Millisecond
	for attempt := 0; attempt <= leaderRetries; attempt++ {
		addr, err := c.leaderAddr(ctx, b, refresh)
		if err != nil {
			if errors.Is(err, ErrNotLeader) && attempt < leaderRetries {
				last = err
				if werr := sleepCtx(ctx, backoff); werr != nil {
					return nil, "", fmt.Errorf("fluss: %s for %s: %w (after %w)", key, b, werr, err)
				}
				backoff *= 2
				refresh = true
				continue
			}
			return nil, "", err
		}
		resp := newResp()
		err = c.callAddr(ctx, addr, key, req, resp)
		if err == nil && check != nil {
			err = check(resp)
		}
		if err == nil {
			return resp, addr, nil
		}
		// A server that is gone may have lost its leadership too: both
		// cases reload metadata and try the (possibly new) leader.
		if !(errors.Is(err, ErrNotLeader) || errors.Is(err, ErrConnection)) || ctx.Err() != nil {
			return nil, "", fmt.Errorf("fluss: %s for %s at %s: %w", key, b, addr, err)
		}
		c.log.Debug("fluss: leader moved or unreachable, refreshing metadata", "bucket", b.String(), "server", addr, "api", key.String(), "err", err)
		last = fmt.Errorf("fluss: %s for %s at %s: %w", key, b, addr, err)
		refresh = true
		if attempt > 0 {
			if werr := sleepCtx(ctx, backoff); werr != nil {
				return nil, "", fmt.Errorf("%w (after %w)", werr, last)
			}
			backoff *= 2
		}
	}
	return nil, "", last
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
