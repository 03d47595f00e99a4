package minifluss

import (
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
)

// dispatch decodes one request body and runs its handler. The caller has
// already checked that this server's role serves the key.
func (cn *conn) dispatch(h requestHeader, body []byte) (proto.Message, error) {
	c := cn.s.c
	switch h.APIKey {
	case apiVersions:
		return decodeThen(body, func(*flusspb.ApiVersionsRequest) (proto.Message, error) {
			return cn.apiVersions(), nil
		})
	case apiAuthenticate:
		return decodeThen(body, cn.authenticate)
	case apiCreateDatabase:
		return decodeThen(body, func(req *flusspb.CreateDatabaseRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return &flusspb.CreateDatabaseResponse{}, c.createDatabaseLocked(req.GetDatabaseName(), req.GetDatabaseJson(), req.GetIgnoreIfExists())
		})
	case apiDropDatabase:
		return decodeThen(body, func(req *flusspb.DropDatabaseRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return &flusspb.DropDatabaseResponse{}, c.dropDatabaseLocked(req.GetDatabaseName(), req.GetIgnoreIfNotExists(), req.GetCascade())
		})
	case apiListDatabases:
		return decodeThen(body, func(req *flusspb.ListDatabasesRequest) (proto.Message, error) {
			return cn.listDatabases(req), nil
		})
	case apiDatabaseExists:
		return decodeThen(body, func(req *flusspb.DatabaseExistsRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			_, ok := c.cat.Databases[req.GetDatabaseName()]
			return &flusspb.DatabaseExistsResponse{Exists: proto.Bool(ok)}, nil
		})
	case apiGetDatabaseInfo:
		return decodeThen(body, func(req *flusspb.GetDatabaseInfoRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			d, ok := c.cat.Databases[req.GetDatabaseName()]
			if !ok {
				return nil, ferr(codeDatabaseNotExist, "database %s does not exist", req.GetDatabaseName())
			}
			return &flusspb.GetDatabaseInfoResponse{DatabaseJson: d.JSON, CreatedTime: proto.Int64(d.Created), ModifiedTime: proto.Int64(d.Modified)}, nil
		})
	case apiCreateTable:
		return decodeThen(body, func(req *flusspb.CreateTableRequest) (proto.Message, error) {
			desc, err := parseDescriptor(req.GetTableJson())
			if err != nil {
				return nil, err
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			_, err = c.createTableLocked(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName(), desc, req.GetIgnoreIfExists())
			return &flusspb.CreateTableResponse{}, err
		})
	case apiDropTable:
		return decodeThen(body, func(req *flusspb.DropTableRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return &flusspb.DropTableResponse{}, c.dropTableLocked(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName(), req.GetIgnoreIfNotExists())
		})
	case apiGetTableInfo:
		return decodeThen(body, cn.tableInfo)
	case apiListTables:
		return decodeThen(body, func(req *flusspb.ListTablesRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			d, ok := c.cat.Databases[req.GetDatabaseName()]
			if !ok {
				return nil, ferr(codeDatabaseNotExist, "database %s does not exist", req.GetDatabaseName())
			}
			resp := &flusspb.ListTablesResponse{}
			for _, t := range d.sortedTables() {
				resp.TableName = append(resp.TableName, t.Name)
			}
			return resp, nil
		})
	case apiListPartitionInfos:
		return decodeThen(body, cn.listPartitionInfos)
	case apiTableExists:
		return decodeThen(body, func(req *flusspb.TableExistsRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			_, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
			if err != nil && asFluss(err).Code == codeDatabaseNotExist {
				return nil, err
			}
			return &flusspb.TableExistsResponse{Exists: proto.Bool(err == nil)}, nil
		})
	case apiGetTableSchema:
		return decodeThen(body, func(req *flusspb.GetTableSchemaRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
			if err != nil {
				return nil, err
			}
			id, js, err := t.schemaJSONFor(req.SchemaId)
			if err != nil {
				return nil, err
			}
			return &flusspb.GetTableSchemaResponse{SchemaId: proto.Int32(id), SchemaJson: js}, nil
		})
	case apiAlterTable:
		return decodeThen(body, cn.alterTableRPC)
	case apiGetMetadata:
		return decodeThen(body, cn.metadata)
	case apiCreatePartition:
		return decodeThen(body, func(req *flusspb.CreatePartitionRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
			if err != nil {
				return nil, err
			}
			// Upstream names the flag ignore_if_not_exists; it means "ignore if it exists".
			_, err = c.createPartitionLocked(t, specMap(req.GetPartitionSpec()), req.GetIgnoreIfNotExists())
			return &flusspb.CreatePartitionResponse{}, err
		})
	case apiDropPartition:
		return decodeThen(body, func(req *flusspb.DropPartitionRequest) (proto.Message, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
			if err != nil {
				return nil, err
			}
			return &flusspb.DropPartitionResponse{}, c.dropPartitionLocked(t, specMap(req.GetPartitionSpec()), req.GetIgnoreIfNotExists())
		})
	case apiGetLakeSnapshot:
		return decodeThen(body, cn.lakeSnapshot)
	case apiGetFileSystemSecToken:
		return decodeThen(body, func(*flusspb.GetFileSystemSecurityTokenRequest) (proto.Message, error) {
			return cn.fsToken(), nil
		})
	case apiListRemoteLogManifests:
		return decodeThen(body, cn.listRemoteLogManifests)
	case apiGetLatestKvSnapshots:
		return decodeThen(body, cn.latestKvSnapshots)
	case apiGetKvSnapshotMetadata:
		return decodeThen(body, cn.kvSnapshotMetadata)
	case apiListKvSnapshots:
		return decodeThen(body, cn.listKvSnapshots)
	case apiProduceLog:
		return decodeThen(body, cn.produceLog)
	case apiPutKv:
		return decodeThen(body, cn.putKv)
	case apiFetchLog:
		return decodeThen(body, cn.fetchLog)
	case apiListOffsets:
		return decodeThen(body, cn.listOffsets)
	case apiLookup:
		return decodeThen(body, cn.lookup)
	case apiPrefixLookup:
		return decodeThen(body, cn.prefixLookup)
	case apiLimitScan:
		return decodeThen(body, cn.limitScan)
	case apiGetTableStats:
		return decodeThen(body, cn.tableStats)
	case apiScanKv:
		return decodeThen(body, cn.scanKv)
	}
	return nil, ferr(codeUnsupportedVersion, "api key %d is not implemented by the emulator", h.APIKey)
}

// decodeThen decodes body into a new request of the handler's type and runs
// the handler on it; a body that does not decode is answered with
// unmarshal's CORRUPT_MESSAGE error and the handler never runs.
func decodeThen[R any, P interface {
	*R
	proto.Message
}](body []byte, handler func(P) (proto.Message, error)) (proto.Message, error) {
	req := P(new(R))
	if err := unmarshal(body, req); err != nil {
		return nil, err
	}
	return handler(req)
}
