package flussapi

import "fmt"

// APIKey identifies an RPC in the request frame header (int16, big-endian).
type APIKey int16

// API keys a reader, the emulator, or its seeding tools use. Ids below 1000
// are reserved for Kafka compatibility.
const (
	APIVersions                APIKey = 1000
	CreateDatabase             APIKey = 1001
	DropDatabase               APIKey = 1002
	ListDatabases              APIKey = 1003
	DatabaseExists             APIKey = 1004
	CreateTable                APIKey = 1005
	DropTable                  APIKey = 1006
	GetTableInfo               APIKey = 1007
	ListTables                 APIKey = 1008
	ListPartitionInfos         APIKey = 1009
	TableExists                APIKey = 1010
	GetTableSchema             APIKey = 1011
	GetMetadata                APIKey = 1012
	ProduceLog                 APIKey = 1014
	FetchLog                   APIKey = 1015
	PutKv                      APIKey = 1016
	Lookup                     APIKey = 1017
	ListOffsets                APIKey = 1021
	GetLatestKvSnapshots       APIKey = 1023
	GetKvSnapshotMetadata      APIKey = 1024
	GetFileSystemSecurityToken APIKey = 1025
	GetLakeSnapshot            APIKey = 1032
	LimitScan                  APIKey = 1033
	PrefixLookup               APIKey = 1034
	GetDatabaseInfo            APIKey = 1035
	CreatePartition            APIKey = 1036
	DropPartition              APIKey = 1037
	Authenticate               APIKey = 1038
	AlterTable                 APIKey = 1044
	GetTableStats              APIKey = 1059
	ScanKv                     APIKey = 1061
	ListRemoteLogManifests     APIKey = 1063
	ListKvSnapshots            APIKey = 1064
)

func apiName(k APIKey) string {
	switch k {
	case APIVersions:
		return "API_VERSIONS"
	case CreateDatabase:
		return "CREATE_DATABASE"
	case DropDatabase:
		return "DROP_DATABASE"
	case ListDatabases:
		return "LIST_DATABASES"
	case DatabaseExists:
		return "DATABASE_EXISTS"
	case CreateTable:
		return "CREATE_TABLE"
	case DropTable:
		return "DROP_TABLE"
	case GetTableInfo:
		return "GET_TABLE_INFO"
	case ListTables:
		return "LIST_TABLES"
	case ListPartitionInfos:
		return "LIST_PARTITION_INFOS"
	case TableExists:
		return "TABLE_EXISTS"
	case GetTableSchema:
		return "GET_TABLE_SCHEMA"
	case GetMetadata:
		return "GET_METADATA"
	case ProduceLog:
		return "PRODUCE_LOG"
	case FetchLog:
		return "FETCH_LOG"
	case PutKv:
		return "PUT_KV"
	case Lookup:
		return "LOOKUP"
	case ListOffsets:
		return "LIST_OFFSETS"
	case GetLatestKvSnapshots:
		return "GET_LATEST_KV_SNAPSHOTS"
	case GetKvSnapshotMetadata:
		return "GET_KV_SNAPSHOT_METADATA"
	case GetFileSystemSecurityToken:
		return "GET_FILESYSTEM_SECURITY_TOKEN"
	case GetLakeSnapshot:
		return "GET_LAKE_SNAPSHOT"
	case LimitScan:
		return "LIMIT_SCAN"
	case PrefixLookup:
		return "PREFIX_LOOKUP"
	case GetDatabaseInfo:
		return "GET_DATABASE_INFO"
	case CreatePartition:
		return "CREATE_PARTITION"
	case AlterTable:
		return "ALTER_TABLE"
	case DropPartition:
		return "DROP_PARTITION"
	case Authenticate:
		return "AUTHENTICATE"
	case GetTableStats:
		return "GET_TABLE_STATS"
	case ScanKv:
		return "SCAN_KV"
	case ListRemoteLogManifests:
		return "LIST_REMOTE_LOG_MANIFESTS"
	case ListKvSnapshots:
		return "LIST_KV_SNAPSHOTS"
	}
	return ""
}

// String returns the upstream name (e.g. "FETCH_LOG"), or "API_<n>".
func (k APIKey) String() string {
	if n := apiName(k); n != "" {
		return n
	}
	return fmt.Sprintf("API_%d", int16(k))
}

// ResponseType is the first byte of a response frame body.
type ResponseType byte

const (
	// ResponseSuccess frames carry a request id and the API's response message.
	ResponseSuccess ResponseType = 0
	// ResponseError frames carry a request id and an ErrorResponse.
	ResponseError ResponseType = 1
	// ResponseServerFailure frames carry NO request id, only an ErrorResponse;
	// the server closes the connection after sending one.
	ResponseServerFailure ResponseType = 2
)

// Server types reported in ApiVersionsResponse.server_type.
const (
	ServerTypeUnknown     int32 = -1
	ServerTypeCoordinator int32 = 1
	ServerTypeTablet      int32 = 2
)

// Offset types of ListOffsetsRequest.offset_type.
const (
	OffsetEarliest  int32 = 0
	OffsetLatest    int32 = 1
	OffsetTimestamp int32 = 2
)

// FetchFromEarliest as a fetch_offset asks the server to resolve the earliest
// offset itself.
const FetchFromEarliest int64 = -2

// Error codes (Errors.java in Fluss 1.0).
const (
	UnknownServerError           int32 = -1
	None                         int32 = 0
	NetworkException             int32 = 1
	UnsupportedVersion           int32 = 2
	CorruptMessage               int32 = 3
	DatabaseNotExist             int32 = 4
	DatabaseNotEmpty             int32 = 5
	DatabaseAlreadyExist         int32 = 6
	TableNotExist                int32 = 7
	TableAlreadyExist            int32 = 8
	SchemaNotExist               int32 = 9
	LogStorageException          int32 = 10
	KvStorageException           int32 = 11
	NotLeaderOrFollower          int32 = 12
	RecordTooLarge               int32 = 13
	CorruptRecord                int32 = 14
	InvalidTable                 int32 = 15
	InvalidDatabase              int32 = 16
	InvalidReplicationFactor     int32 = 17
	InvalidRequiredAcks          int32 = 18
	LogOffsetOutOfRange          int32 = 19
	NonPrimaryKeyTable           int32 = 20
	UnknownTableOrBucket         int32 = 21
	InvalidUpdateVersion         int32 = 22
	InvalidCoordinator           int32 = 23
	FencedLeaderEpoch            int32 = 24
	RequestTimeOut               int32 = 25
	StorageException             int32 = 26
	OperationNotAttempted        int32 = 27
	NotEnoughReplicasAfterAppend int32 = 28
	NotEnoughReplicas            int32 = 29
	SecurityTokenException       int32 = 30
	OutOfOrderSequence           int32 = 31
	DuplicateSequence            int32 = 32
	UnknownWriterID              int32 = 33
	InvalidColumnProjection      int32 = 34
	InvalidTargetColumn          int32 = 35
	PartitionNotExists           int32 = 36
	TableNotPartitioned          int32 = 37
	InvalidTimestamp             int32 = 38
	InvalidConfig                int32 = 39
	LakeStorageNotConfigured     int32 = 40
	KvSnapshotNotExist           int32 = 41
	PartitionAlreadyExists       int32 = 42
	PartitionSpecInvalid         int32 = 43
	LeaderNotAvailable           int32 = 44
	PartitionMaxNum              int32 = 45
	AuthenticateException        int32 = 46
	SecurityDisabled             int32 = 47
	AuthorizationException       int32 = 48
	BucketMaxNum                 int32 = 49
	FencedTieringEpoch           int32 = 50
	RetriableAuthenticate        int32 = 51
	InvalidServerRackInfo        int32 = 52
	LakeSnapshotNotExist         int32 = 53
	LakeTableAlreadyExist        int32 = 54
	IneligibleReplica            int32 = 55
	InvalidAlterTable            int32 = 56
	DeletionDisabled             int32 = 57
	ServerNotExist               int32 = 58
	ServerTagAlreadyExist        int32 = 59
	ServerTagNotExist            int32 = 60
	RebalanceFailure             int32 = 61
	NoRebalanceInProgress        int32 = 62
	InvalidProducerID            int32 = 63
	ConfigException              int32 = 64
	NotCoordinatorLeader         int32 = 65
	ScannerExpired               int32 = 66
	UnknownScannerID             int32 = 67
	InvalidScanRequest           int32 = 68
	TooManyScanners              int32 = 69
	DiskWriteLocked              int32 = 70
	InsufficientKvLeaderCapacity int32 = 71
	StorageBackpressure          int32 = 72
	HistoricalPartitionThrottled int32 = 73
)

func errorName(code int32) string {
	switch code {
	case -1:
		return "UNKNOWN_SERVER_ERROR"
	case 0:
		return "NONE"
	case 1:
		return "NETWORK_EXCEPTION"
	case 2:
		return "UNSUPPORTED_VERSION"
	case 3:
		return "CORRUPT_MESSAGE"
	case 4:
		return "DATABASE_NOT_EXIST"
	case 5:
		return "DATABASE_NOT_EMPTY"
	case 6:
		return "DATABASE_ALREADY_EXIST"
	case 7:
		return "TABLE_NOT_EXIST"
	case 8:
		return "TABLE_ALREADY_EXIST"
	case 9:
		return "SCHEMA_NOT_EXIST"
	case 10:
		return "LOG_STORAGE_EXCEPTION"
	case 11:
		return "KV_STORAGE_EXCEPTION"
	case 12:
		return "NOT_LEADER_OR_FOLLOWER"
	case 13:
		return "RECORD_TOO_LARGE_EXCEPTION"
	case 14:
		return "CORRUPT_RECORD_EXCEPTION"
	case 15:
		return "INVALID_TABLE_EXCEPTION"
	case 16:
		return "INVALID_DATABASE_EXCEPTION"
	case 17:
		return "INVALID_REPLICATION_FACTOR"
	case 18:
		return "INVALID_REQUIRED_ACKS"
	case 19:
		return "LOG_OFFSET_OUT_OF_RANGE_EXCEPTION"
	case 20:
		return "NON_PRIMARY_KEY_TABLE_EXCEPTION"
	case 21:
		return "UNKNOWN_TABLE_OR_BUCKET_EXCEPTION"
	case 22:
		return "INVALID_UPDATE_VERSION_EXCEPTION"
	case 23:
		return "INVALID_COORDINATOR_EXCEPTION"
	case 24:
		return "FENCED_LEADER_EPOCH_EXCEPTION"
	case 25:
		return "REQUEST_TIME_OUT"
	case 26:
		return "STORAGE_EXCEPTION"
	case 27:
		return "OPERATION_NOT_ATTEMPTED_EXCEPTION"
	case 28:
		return "NOT_ENOUGH_REPLICAS_AFTER_APPEND_EXCEPTION"
	case 29:
		return "NOT_ENOUGH_REPLICAS_EXCEPTION"
	case 30:
		return "SECURITY_TOKEN_EXCEPTION"
	case 31:
		return "OUT_OF_ORDER_SEQUENCE_EXCEPTION"
	case 32:
		return "DUPLICATE_SEQUENCE_EXCEPTION"
	case 33:
		return "UNKNOWN_WRITER_ID_EXCEPTION"
	case 34:
		return "INVALID_COLUMN_PROJECTION"
	case 35:
		return "INVALID_TARGET_COLUMN"
	case 36:
		return "PARTITION_NOT_EXISTS"
	case 37:
		return "TABLE_NOT_PARTITIONED_EXCEPTION"
	case 38:
		return "INVALID_TIMESTAMP_EXCEPTION"
	case 39:
		return "INVALID_CONFIG_EXCEPTION"
	case 40:
		return "LAKE_STORAGE_NOT_CONFIGURED_EXCEPTION"
	case 41:
		return "KV_SNAPSHOT_NOT_EXIST"
	case 42:
		return "PARTITION_ALREADY_EXISTS"
	case 43:
		return "PARTITION_SPEC_INVALID_EXCEPTION"
	case 44:
		return "LEADER_NOT_AVAILABLE_EXCEPTION"
	case 45:
		return "PARTITION_MAX_NUM_EXCEPTION"
	case 46:
		return "AUTHENTICATE_EXCEPTION"
	case 47:
		return "SECURITY_DISABLED_EXCEPTION"
	case 48:
		return "AUTHORIZATION_EXCEPTION"
	case 49:
		return "BUCKET_MAX_NUM_EXCEPTION"
	case 50:
		return "FENCED_TIERING_EPOCH_EXCEPTION"
	case 51:
		return "RETRIABLE_AUTHENTICATE_EXCEPTION"
	case 52:
		return "INVALID_SERVER_RACK_INFO_EXCEPTION"
	case 53:
		return "LAKE_SNAPSHOT_NOT_EXIST"
	case 54:
		return "LAKE_TABLE_ALREADY_EXIST"
	case 55:
		return "INELIGIBLE_REPLICA_EXCEPTION"
	case 56:
		return "INVALID_ALTER_TABLE_EXCEPTION"
	case 57:
		return "DELETION_DISABLED_EXCEPTION"
	case 58:
		return "SERVER_NOT_EXIST_EXCEPTION"
	case 59:
		return "SEVER_TAG_ALREADY_EXIST_EXCEPTION"
	case 60:
		return "SEVER_TAG_NOT_EXIST_EXCEPTION"
	case 61:
		return "REBALANCE_FAILURE_EXCEPTION"
	case 62:
		return "NO_REBALANCE_IN_PROGRESS_EXCEPTION"
	case 63:
		return "INVALID_PRODUCER_ID_EXCEPTION"
	case 64:
		return "CONFIG_EXCEPTION"
	case 65:
		return "NOT_COORDINATOR_LEADER_EXCEPTION"
	case 66:
		return "SCANNER_EXPIRED"
	case 67:
		return "UNKNOWN_SCANNER_ID"
	case 68:
		return "INVALID_SCAN_REQUEST"
	case 69:
		return "TOO_MANY_SCANNERS"
	case 70:
		return "DISK_WRITE_LOCKED"
	case 71:
		return "INSUFFICIENT_KV_LEADER_REPLICA_CAPACITY"
	case 72:
		return "STORAGE_BACKPRESSURE_EXCEPTION"
	case 73:
		return "HISTORICAL_PARTITION_THROTTLED"
	}
	return ""
}

// ErrorName returns the upstream name of an error code, or "ERROR_<n>" for a
// code this table does not know.
func ErrorName(code int32) string {
	if n := errorName(code); n != "" {
		return n
	}
	return fmt.Sprintf("ERROR_%d", code)
}
