package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// ListDatabases returns the database names.
func (c *Client) ListDatabases(ctx context.Context) ([]string, error) {
	var resp flusspb.ListDatabasesResponse
	if err := c.callAny(ctx, flussapi.ListDatabases, &flusspb.ListDatabasesRequest{}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: list databases: %w", err)
	}
	return resp.GetDatabaseName(), nil
}

// DatabaseExists reports whether db exists.
func (c *Client) DatabaseExists(ctx context.Context, db string) (bool, error) {
	var resp flusspb.DatabaseExistsResponse
	if err := c.callAny(ctx, flussapi.DatabaseExists, &flusspb.DatabaseExistsRequest{DatabaseName: proto.String(db)}, &resp); err != nil {
		return false, fmt.Errorf("fluss: database %q exists: %w", db, err)
	}
	return resp.GetExists(), nil
}

// DatabaseInfo is GET_DATABASE_INFO's answer; DatabaseJSON holds the
// comment and custom properties.
type DatabaseInfo struct {
	Name         string
	DatabaseJSON []byte
	CreatedTime  int64
	ModifiedTime int64
}

// GetDatabaseInfo returns a database's descriptor JSON and times.
func (c *Client) GetDatabaseInfo(ctx context.Context, db string) (*DatabaseInfo, error) {
	var resp flusspb.GetDatabaseInfoResponse
	if err := c.callAny(ctx, flussapi.GetDatabaseInfo, &flusspb.GetDatabaseInfoRequest{DatabaseName: proto.String(db)}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: database info of %q: %w", db, err)
	}
	return &DatabaseInfo{Name: db, DatabaseJSON: resp.GetDatabaseJson(), CreatedTime: resp.GetCreatedTime(), ModifiedTime: resp.GetModifiedTime()}, nil
}

// ListTables returns the table names of db.
func (c *Client) ListTables(ctx context.Context, db string) ([]string, error) {
	var resp flusspb.ListTablesResponse
	if err := c.callAny(ctx, flussapi.ListTables, &flusspb.ListTablesRequest{DatabaseName: proto.String(db)}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: list tables of database %q: %w", db, err)
	}
	return resp.GetTableName(), nil
}

// TableExists reports whether t exists.
func (c *Client) TableExists(ctx context.Context, t TablePath) (bool, error) {
	var resp flusspb.TableExistsResponse
	if err := c.callAny(ctx, flussapi.TableExists, &flusspb.TableExistsRequest{TablePath: t.pb()}, &resp); err != nil {
		return false, fmt.Errorf("fluss: table %s exists: %w", t, err)
	}
	return resp.GetExists(), nil
}

// TableInfo is GET_TABLE_INFO's answer. TableJSON is the table descriptor
// JSON (schema, primary key, partition and bucket keys, bucket count,
// properties, comment) exactly as the server sent it.
type TableInfo struct {
	Path          TablePath
	TableID       int64
	SchemaID      int32
	TableJSON     []byte
	CreatedTime   int64 // ms since epoch
	ModifiedTime  int64
	RemoteDataDir string // 1.0; empty when the server did not send it
	// Descriptor is TableJSON decoded: schema, primary key, partition keys,
	// bucket keys and count, properties, custom properties, comments.
	Descriptor *record.TableDescriptor
}

// GetTableInfo returns the table's id, schema id and descriptor JSON.
func (c *Client) GetTableInfo(ctx context.Context, t TablePath) (*TableInfo, error) {
	var resp flusspb.GetTableInfoResponse
	if err := c.callAny(ctx, flussapi.GetTableInfo, &flusspb.GetTableInfoRequest{TablePath: t.pb()}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: table info of %s: %w", t, err)
	}
	if resp.TableId == nil || resp.TableJson == nil {
		return nil, fmt.Errorf("%w: GET_TABLE_INFO for %s lacks table_id or table_json", ErrProtocol, t)
	}
	desc, err := record.ParseTableDescriptor(resp.GetTableJson())
	if err != nil {
		return nil, fmt.Errorf("fluss: table info of %s: table JSON: %w", t, err)
	}
	return &TableInfo{
		Path: t, TableID: resp.GetTableId(), SchemaID: resp.GetSchemaId(), TableJSON: resp.GetTableJson(),
		CreatedTime: resp.GetCreatedTime(), ModifiedTime: resp.GetModifiedTime(), RemoteDataDir: resp.GetRemoteDataDir(),
		Descriptor: desc,
	}, nil
}

// GetTableSchema returns a schema of t as JSON; schemaID nil = latest.
func (c *Client) GetTableSchema(ctx context.Context, t TablePath, schemaID *int32) (int32, []byte, error) {
	var resp flusspb.GetTableSchemaResponse
	if err := c.callAny(ctx, flussapi.GetTableSchema, &flusspb.GetTableSchemaRequest{TablePath: t.pb(), SchemaId: schemaID}, &resp); err != nil {
		return 0, nil, fmt.Errorf("fluss: schema of %s: %w", t, err)
	}
	return resp.GetSchemaId(), resp.GetSchemaJson(), nil
}

// KeyValue is one partition key and its value, in partition-key order.
type KeyValue struct {
	Key   string
	Value string
}

// PartitionInfo is one partition of a partitioned table.
type PartitionInfo struct {
	ID            int64
	Spec          []KeyValue
	RemoteDataDir string
}

// Name is the partition name used on the wire: the values joined with '$'.
func (p PartitionInfo) Name() string {
	vs := make([]string, len(p.Spec))
	for i, kv := range p.Spec {
		vs[i] = kv.Value
	}
	return strings.Join(vs, "$")
}

// ListPartitionInfos lists the partitions of t, optionally only those
// matching a partial spec.
func (c *Client) ListPartitionInfos(ctx context.Context, t TablePath, partial ...KeyValue) ([]PartitionInfo, error) {
	req := &flusspb.ListPartitionInfosRequest{TablePath: t.pb()}
	if len(partial) > 0 {
		req.PartialPartitionSpec = specPB(partial)
	}
	var resp flusspb.ListPartitionInfosResponse
	if err := c.callAny(ctx, flussapi.ListPartitionInfos, req, &resp); err != nil {
		return nil, fmt.Errorf("fluss: partitions of %s: %w", t, err)
	}
	out := make([]PartitionInfo, 0, len(resp.GetPartitionsInfo()))
	for _, p := range resp.GetPartitionsInfo() {
		pi := PartitionInfo{ID: p.GetPartitionId(), RemoteDataDir: p.GetRemoteDataDir()}
		for _, kv := range p.GetPartitionSpec().GetPartitionKeyValues() {
			pi.Spec = append(pi.Spec, KeyValue{Key: kv.GetKey(), Value: kv.GetValue()})
		}
		out = append(out, pi)
	}
	return out, nil
}

func specPB(kvs []KeyValue) *flusspb.PbPartitionSpec {
	s := &flusspb.PbPartitionSpec{}
	for _, kv := range kvs {
		s.PartitionKeyValues = append(s.PartitionKeyValues, &flusspb.PbKeyValue{Key: proto.String(kv.Key), Value: proto.String(kv.Value)})
	}
	return s
}

// partitionName returns the name of partition id of t, from the metadata
// cache or, failing that, from LIST_PARTITION_INFOS.
func (c *Client) partitionName(ctx context.Context, t TablePath, id int64) (string, error) {
	c.mu.Lock()
	if m := c.tables[t]; m != nil {
		if n, ok := m.partNames[id]; ok {
			c.mu.Unlock()
			return n, nil
		}
	}
	c.mu.Unlock()
	parts, err := c.ListPartitionInfos(ctx, t)
	if err != nil {
		return "", err
	}
	for _, p := range parts {
		if p.ID == id {
			return p.Name(), nil
		}
	}
	return "", fmt.Errorf("fluss: table %s partition id %d: %w", t, id, &Error{Code: flussapi.PartitionNotExists, Message: "not listed"})
}

// SecurityToken is GET_FILESYSTEM_SECURITY_TOKEN's answer. Token holds
// credentials: String never prints it.
type SecurityToken struct {
	Scheme         string            // URI scheme of the remote FS (s3, oss, ...)
	Token          []byte            // e.g. S3/OSS JSON credentials; secret
	ExpirationTime *int64            // ms since epoch, if the server said
	AdditionInfo   map[string]string // e.g. fs.s3a.endpoint
}

func (t SecurityToken) String() string {
	return fmt.Sprintf("fluss security token{scheme=%s token=<redacted %d bytes> info_keys=%d}", t.Scheme, len(t.Token), len(t.AdditionInfo))
}

// GetFileSystemSecurityToken asks for credentials to the cluster's remote storage.
func (c *Client) GetFileSystemSecurityToken(ctx context.Context) (*SecurityToken, error) {
	var resp flusspb.GetFileSystemSecurityTokenResponse
	if err := c.callAny(ctx, flussapi.GetFileSystemSecurityToken, &flusspb.GetFileSystemSecurityTokenRequest{}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: file system security token: %w", err)
	}
	t := &SecurityToken{Scheme: resp.GetSchema(), Token: resp.GetToken(), ExpirationTime: resp.ExpirationTime, AdditionInfo: map[string]string{}}
	for _, kv := range resp.GetAdditionInfo() {
		t.AdditionInfo[kv.GetKey()] = kv.GetValue()
	}
	return t, nil
}

// Bucket names one bucket of this table (part nil when not partitioned).
func (t *TableInfo) Bucket(part *int64, bucket int32) TableBucket {
	return TableBucket{Table: t.Path, TableID: t.TableID, PartitionID: part, Bucket: bucket}
}

// LogRange describes a read of [start, stop) of one bucket's log with the
// table's current schema and log format.
func (t *TableInfo) LogRange(part *int64, bucket int32, start, stop int64) (LogRange, error) {
	f, err := t.Descriptor.LogFormat()
	if err != nil {
		return LogRange{}, fmt.Errorf("fluss: table %s: %w", t.Path, err)
	}
	return LogRange{Bucket: t.Bucket(part, bucket), Start: start, Stop: stop, Columns: t.Descriptor.Schema.TypeColumns(),
		SchemaID: t.SchemaID, ColumnIDs: t.Descriptor.Schema.ColumnIDs(), Format: f}, nil
}

// PKRange describes a read of one primary-key bucket's state with the
// changelog applied up to stop (< 0: the high watermark at read time).
func (t *TableInfo) PKRange(part *int64, bucket int32, stop int64) (PKRange, error) {
	d := t.Descriptor
	if !d.HasPrimaryKey() {
		return PKRange{}, fmt.Errorf("fluss: table %s: %w", t.Path, &Error{Code: flussapi.NonPrimaryKeyTable, Message: "no primary key"})
	}
	lf, err := d.LogFormat()
	if err != nil {
		return PKRange{}, fmt.Errorf("fluss: table %s: %w", t.Path, err)
	}
	kf, err := d.KvFormat()
	if err != nil {
		return PKRange{}, fmt.Errorf("fluss: table %s: %w", t.Path, err)
	}
	pk := make([]int, len(d.Schema.PrimaryKey))
	for i, k := range d.Schema.PrimaryKey {
		if pk[i] = d.Schema.ColumnIndex(k); pk[i] < 0 {
			return PKRange{}, fmt.Errorf("%w: table %s: primary-key column %q is not in the schema", ErrProtocol, t.Path, k)
		}
	}
	return PKRange{Bucket: t.Bucket(part, bucket), Columns: d.Schema.TypeColumns(), SchemaID: t.SchemaID, ColumnIDs: d.Schema.ColumnIDs(), PrimaryKey: pk,
		KvFormat: kf, LogFormat: lf, Stop: stop}, nil
}
