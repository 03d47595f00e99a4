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
		var req flusspb.ApiVersionsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.apiVersions(), nil
	case apiAuthenticate:
		var req flusspb.AuthenticateRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.authenticate(&req)
	case apiCreateDatabase:
		var req flusspb.CreateDatabaseRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return &flusspb.CreateDatabaseResponse{}, c.createDatabaseLocked(req.GetDatabaseName(), req.GetDatabaseJson(), req.GetIgnoreIfExists())
	case apiDropDatabase:
		var req flusspb.DropDatabaseRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return &flusspb.DropDatabaseResponse{}, c.dropDatabaseLocked(req.GetDatabaseName(), req.GetIgnoreIfNotExists(), req.GetCascade())
	case apiListDatabases:
		var req flusspb.ListDatabasesRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.listDatabases(&req), nil
	case apiDatabaseExists:
		var req flusspb.DatabaseExistsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.cat.Databases[req.GetDatabaseName()]
		return &flusspb.DatabaseExistsResponse{Exists: proto.Bool(ok)}, nil
	case apiGetDatabaseInfo:
		var req flusspb.GetDatabaseInfoRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		d, ok := c.cat.Databases[req.GetDatabaseName()]
		if !ok {
			return nil, ferr(codeDatabaseNotExist, "database %s does not exist", req.GetDatabaseName())
		}
		return &flusspb.GetDatabaseInfoResponse{DatabaseJson: d.JSON, CreatedTime: proto.Int64(d.Created), ModifiedTime: proto.Int64(d.Modified)}, nil
	case apiCreateTable:
		var req flusspb.CreateTableRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		desc, err := parseDescriptor(req.GetTableJson())
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		_, err = c.createTableLocked(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName(), desc, req.GetIgnoreIfExists())
		return &flusspb.CreateTableResponse{}, err
	case apiDropTable:
		var req flusspb.DropTableRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return &flusspb.DropTableResponse{}, c.dropTableLocked(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName(), req.GetIgnoreIfNotExists())
	case apiGetTableInfo:
		var req flusspb.GetTableInfoRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.tableInfo(&req)
	case apiListTables:
		var req flusspb.ListTablesRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
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
	case apiListPartitionInfos:
		var req flusspb.ListPartitionInfosRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.listPartitionInfos(&req)
	case apiTableExists:
		var req flusspb.TableExistsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		_, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
		if err != nil && asFluss(err).Code == codeDatabaseNotExist {
			return nil, err
		}
		return &flusspb.TableExistsResponse{Exists: proto.Bool(err == nil)}, nil
	case apiGetTableSchema:
		var req flusspb.GetTableSchemaRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
		if err != nil {
			return nil, err
		}
		if req.SchemaId != nil && req.GetSchemaId() != t.SchemaID {
			return nil, ferr(codeSchemaNotExist, "table %s has no schema id %d (latest is %d)", t.path(), req.GetSchemaId(), t.SchemaID)
		}
		return &flusspb.GetTableSchemaResponse{SchemaId: proto.Int32(t.SchemaID), SchemaJson: t.Desc.schemaBytes()}, nil
	case apiGetMetadata:
		var req flusspb.MetadataRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.metadata(&req)
	case apiCreatePartition:
		var req flusspb.CreatePartitionRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
		if err != nil {
			return nil, err
		}
		// Upstream names the flag ignore_if_not_exists; it means "ignore if it exists".
		_, err = c.createPartitionLocked(t, specMap(req.GetPartitionSpec()), req.GetIgnoreIfNotExists())
		return &flusspb.CreatePartitionResponse{}, err
	case apiDropPartition:
		var req flusspb.DropPartitionRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
		if err != nil {
			return nil, err
		}
		return &flusspb.DropPartitionResponse{}, c.dropPartitionLocked(t, specMap(req.GetPartitionSpec()), req.GetIgnoreIfNotExists())
	case apiGetLakeSnapshot:
		var req flusspb.GetLakeSnapshotRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.lakeSnapshot(&req)
	case apiGetFileSystemSecToken:
		var req flusspb.GetFileSystemSecurityTokenRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.fsToken(), nil
	case apiListRemoteLogManifests:
		var req flusspb.ListRemoteLogManifestsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.listRemoteLogManifests(&req)
	case apiGetLatestKvSnapshots:
		var req flusspb.GetLatestKvSnapshotsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.latestKvSnapshots(&req)
	case apiGetKvSnapshotMetadata:
		var req flusspb.GetKvSnapshotMetadataRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.kvSnapshotMetadata(&req)
	case apiListKvSnapshots:
		var req flusspb.ListKvSnapshotsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.listKvSnapshots(&req)
	case apiProduceLog:
		var req flusspb.ProduceLogRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.produceLog(&req)
	case apiPutKv:
		var req flusspb.PutKvRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.putKv(&req)
	case apiFetchLog:
		var req flusspb.FetchLogRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.fetchLog(&req)
	case apiListOffsets:
		var req flusspb.ListOffsetsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.listOffsets(&req)
	case apiLookup:
		var req flusspb.LookupRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.lookup(&req)
	case apiPrefixLookup:
		var req flusspb.PrefixLookupRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.prefixLookup(&req)
	case apiLimitScan:
		var req flusspb.LimitScanRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.limitScan(&req)
	case apiGetTableStats:
		var req flusspb.GetTableStatsRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.tableStats(&req)
	case apiScanKv:
		var req flusspb.ScanKvRequest
		if err := unmarshal(body, &req); err != nil {
			return nil, err
		}
		return cn.scanKv(&req)
	}
	return nil, ferr(codeUnsupportedVersion, "api key %d is not implemented by the emulator", h.APIKey)
}
