package minifluss

// API keys of Fluss 1.0 (spec §1.3) that the emulator serves.
const (
	apiVersions               = 1000
	apiCreateDatabase         = 1001
	apiDropDatabase           = 1002
	apiListDatabases          = 1003
	apiDatabaseExists         = 1004
	apiCreateTable            = 1005
	apiDropTable              = 1006
	apiGetTableInfo           = 1007
	apiListTables             = 1008
	apiListPartitionInfos     = 1009
	apiTableExists            = 1010
	apiGetTableSchema         = 1011
	apiGetMetadata            = 1012
	apiProduceLog             = 1014
	apiFetchLog               = 1015
	apiPutKv                  = 1016
	apiLookup                 = 1017
	apiListOffsets            = 1021
	apiGetLatestKvSnapshots   = 1023
	apiGetKvSnapshotMetadata  = 1024
	apiGetFileSystemSecToken  = 1025
	apiGetLakeSnapshot        = 1032
	apiLimitScan              = 1033
	apiPrefixLookup           = 1034
	apiGetDatabaseInfo        = 1035
	apiCreatePartition        = 1036
	apiDropPartition          = 1037
	apiAuthenticate           = 1038
	apiGetTableStats          = 1059
	apiScanKv                 = 1061
	apiListRemoteLogManifests = 1063
	apiListKvSnapshots        = 1064
)

// Server types carried in ApiVersionsResponse.server_type.
const (
	serverTypeCoordinator = 1
	serverTypeTablet      = 2
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
