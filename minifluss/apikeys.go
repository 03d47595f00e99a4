package minifluss

import "github.com/inlet-db/inlet/proto/flussapi"

// API keys the emulator serves, from the shared table in proto/flussapi.
const (
	apiVersions               = int16(flussapi.APIVersions)
	apiCreateDatabase         = int16(flussapi.CreateDatabase)
	apiDropDatabase           = int16(flussapi.DropDatabase)
	apiListDatabases          = int16(flussapi.ListDatabases)
	apiDatabaseExists         = int16(flussapi.DatabaseExists)
	apiCreateTable            = int16(flussapi.CreateTable)
	apiDropTable              = int16(flussapi.DropTable)
	apiGetTableInfo           = int16(flussapi.GetTableInfo)
	apiListTables             = int16(flussapi.ListTables)
	apiListPartitionInfos     = int16(flussapi.ListPartitionInfos)
	apiTableExists            = int16(flussapi.TableExists)
	apiGetTableSchema         = int16(flussapi.GetTableSchema)
	apiGetMetadata            = int16(flussapi.GetMetadata)
	apiProduceLog             = int16(flussapi.ProduceLog)
	apiFetchLog               = int16(flussapi.FetchLog)
	apiPutKv                  = int16(flussapi.PutKv)
	apiLookup                 = int16(flussapi.Lookup)
	apiListOffsets            = int16(flussapi.ListOffsets)
	apiGetLatestKvSnapshots   = int16(flussapi.GetLatestKvSnapshots)
	apiGetKvSnapshotMetadata  = int16(flussapi.GetKvSnapshotMetadata)
	apiGetFileSystemSecToken  = int16(flussapi.GetFileSystemSecurityToken)
	apiGetLakeSnapshot        = int16(flussapi.GetLakeSnapshot)
	apiLimitScan              = int16(flussapi.LimitScan)
	apiPrefixLookup           = int16(flussapi.PrefixLookup)
	apiGetDatabaseInfo        = int16(flussapi.GetDatabaseInfo)
	apiCreatePartition        = int16(flussapi.CreatePartition)
	apiDropPartition          = int16(flussapi.DropPartition)
	apiAuthenticate           = int16(flussapi.Authenticate)
	apiGetTableStats          = int16(flussapi.GetTableStats)
	apiScanKv                 = int16(flussapi.ScanKv)
	apiListRemoteLogManifests = int16(flussapi.ListRemoteLogManifests)
	apiListKvSnapshots        = int16(flussapi.ListKvSnapshots)
)

// Server types carried in ApiVersionsResponse.server_type.
const (
	serverTypeCoordinator = flussapi.ServerTypeCoordinator
	serverTypeTablet      = flussapi.ServerTypeTablet
)

type apiRange struct {
	key      int16
	min, max int32
}

// servedAPIs lists the keys one role answers, from the gateway interfaces
// (spec §1.3): AdminReadOnlyGateway keys on both roles, coordinator-only keys
// on the coordinator, data keys on tablet servers. A role never advertises,
// nor answers, another role's keys. Built per call: no package state.
func servedAPIs(coordinator bool) []apiRange {
	out := []apiRange{
		{apiVersions, 0, 0},
		{apiAuthenticate, 0, 0},
		{apiListDatabases, 0, 0},
		{apiDatabaseExists, 0, 0},
		{apiGetDatabaseInfo, 0, 0},
		{apiGetTableInfo, 0, 0},
		{apiListTables, 0, 0},
		{apiListPartitionInfos, 0, 0},
		{apiTableExists, 0, 0},
		{apiGetTableSchema, 0, 0},
		{apiGetMetadata, 0, 0},
		{apiGetLatestKvSnapshots, 0, 0},
		{apiGetKvSnapshotMetadata, 0, 0},
		{apiGetFileSystemSecToken, 0, 0},
		{apiGetLakeSnapshot, 0, 0},
	}
	if coordinator {
		return append(out,
			apiRange{apiCreateDatabase, 0, 0},
			apiRange{apiDropDatabase, 0, 0},
			apiRange{apiCreateTable, 0, 0},
			apiRange{apiDropTable, 0, 0},
			apiRange{apiCreatePartition, 0, 0},
			apiRange{apiAlterTable, 0, 0},
			apiRange{apiDropPartition, 0, 0},
			apiRange{apiListRemoteLogManifests, 0, 0},
			apiRange{apiListKvSnapshots, 0, 0},
		)
	}
	return append(out,
		apiRange{apiProduceLog, 0, 0},
		apiRange{apiFetchLog, 0, 0},
		apiRange{apiPutKv, 0, 2},
		apiRange{apiLookup, 0, 1},
		apiRange{apiPrefixLookup, 0, 1},
		apiRange{apiListOffsets, 0, 0},
		apiRange{apiLimitScan, 0, 0},
		apiRange{apiGetTableStats, 0, 0},
		apiRange{apiScanKv, 0, 0},
	)
}

func serves(coordinator bool, key int16) bool {
	for _, a := range servedAPIs(coordinator) {
		if a.key == key {
			return true
		}
	}
	return false
}
