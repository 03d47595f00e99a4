package vars

// Kind is the value type of a variable.
type Kind int

// Kinds of variables.
const (
	String Kind = iota
	Bool
	Int
	Enum
)

// Def describes one variable.
type Def struct {
	Name    string
	Kind    Kind
	Default string
	// Min and Max bound Int variables.
	Min, Max int64
	// GlobalMin is the least value SET GLOBAL accepts (Int variables; 0
	// none): a session may choke itself with exec_mem_limit = 1, but a
	// global value that small fails every statement of every user, root
	// included, until a restart.
	GlobalMin int64
	// Values lists the allowed spellings of an Enum variable (compared
	// case-insensitively).
	Values []string
	// ReadOnly variables can be read but not SET.
	ReadOnly bool
	// GlobalOnly variables can only be SET GLOBAL.
	GlobalOnly bool
	// Check validates a String variable's value.
	Check func(v string) error
}

const maxInt = int64(1<<63 - 1)

// Defs returns the definitions of all variables Inlet knows, with Doris
// names and defaults. versionComment and timeZone come from the FE config.
func Defs(versionComment, timeZone string) []Def {
	return []Def{
		// Fluss catalog and scan behaviour (fluss-catalog spec).
		{Name: "fluss_union_read_mode", Kind: Enum, Default: "", Values: []string{"", "auto", "required", "disabled"}},
		{Name: "max_file_scanners_concurrency", Kind: Int, Default: "16", Min: 1, Max: 1 << 16},
		{Name: "enable_jni_heap_admission", Kind: Bool, Default: "false"},
		{Name: "force_jni_scanner", Kind: Bool, Default: "false"},
		{Name: "file_split_size", Kind: Int, Default: "0", Min: 0, Max: maxInt},
		{Name: "enable_prune_nested_column", Kind: Bool, Default: "true"},
		{Name: "time_zone", Kind: String, Default: timeZone, Check: checkTimeZone},
		{Name: "system_time_zone", Kind: String, Default: timeZone, ReadOnly: true},

		// Query execution knobs Doris users expect to exist.
		{Name: "batch_size", Kind: Int, Default: "4064", Min: 1, Max: 1 << 20, GlobalMin: 256},
		{Name: "query_timeout", Kind: Int, Default: "900", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "exec_mem_limit", Kind: Int, Default: "2147483648", Min: 1, Max: maxInt, GlobalMin: 64 << 20},
		{Name: "parallel_pipeline_task_num", Kind: Int, Default: "0", Min: 0, Max: 1024},
		{Name: "sql_select_limit", Kind: Int, Default: "9223372036854775807", Min: 0, Max: maxInt},
		{Name: "default_order_by_limit", Kind: Int, Default: "-1", Min: -1, Max: maxInt},
		{Name: "enable_profile", Kind: Bool, Default: "false"},

		// What MySQL clients and connectors read on connect.
		{Name: "version_comment", Kind: String, Default: versionComment, ReadOnly: true},
		{Name: "version", Kind: String, Default: "5.7.99", ReadOnly: true},
		{Name: "autocommit", Kind: Bool, Default: "true"},
		{Name: "sql_mode", Kind: String, Default: "ONLY_FULL_GROUP_BY"},
		{Name: "character_set_client", Kind: String, Default: "utf8mb4", Check: checkCharset},
		{Name: "character_set_connection", Kind: String, Default: "utf8mb4", Check: checkCharset},
		{Name: "character_set_results", Kind: String, Default: "utf8mb4", Check: checkCharsetOrNull},
		{Name: "character_set_server", Kind: String, Default: "utf8mb4", Check: checkCharset},
		{Name: "character_set_database", Kind: String, Default: "utf8mb4", Check: checkCharset},
		{Name: "collation_connection", Kind: String, Default: "utf8mb4_0900_bin"},
		{Name: "collation_database", Kind: String, Default: "utf8mb4_0900_bin"},
		{Name: "collation_server", Kind: String, Default: "utf8mb4_0900_bin"},
		{Name: "max_allowed_packet", Kind: Int, Default: "16777216", Min: 1024, Max: 1 << 30, GlobalMin: 64 << 10},
		{Name: "net_buffer_length", Kind: Int, Default: "16384", Min: 1024, Max: 1 << 20},
		{Name: "net_read_timeout", Kind: Int, Default: "60", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "net_write_timeout", Kind: Int, Default: "60", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "wait_timeout", Kind: Int, Default: "28800", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "interactive_timeout", Kind: Int, Default: "3600", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "transaction_isolation", Kind: String, Default: "REPEATABLE-READ"},
		{Name: "tx_isolation", Kind: String, Default: "REPEATABLE-READ"},
		{Name: "transaction_read_only", Kind: Bool, Default: "false"},
		{Name: "tx_read_only", Kind: Bool, Default: "false"},
		{Name: "lower_case_table_names", Kind: Int, Default: "0", ReadOnly: true},
		{Name: "init_connect", Kind: String, Default: "", GlobalOnly: true},
		{Name: "license", Kind: String, Default: "Apache License, Version 2.0", ReadOnly: true},
		{Name: "query_cache_size", Kind: Int, Default: "1048576", Min: 0, Max: maxInt},
		{Name: "query_cache_type", Kind: Int, Default: "0", Min: 0, Max: 2},
		{Name: "have_query_cache", Kind: Bool, Default: "false", ReadOnly: true},
		{Name: "performance_schema", Kind: Bool, Default: "false", ReadOnly: true},
		{Name: "auto_increment_increment", Kind: Int, Default: "1", Min: 1, Max: 65535},
		{Name: "sql_safe_updates", Kind: Int, Default: "0", Min: 0, Max: 1},
		{Name: "sql_auto_is_null", Kind: Bool, Default: "false"},
		{Name: "div_precision_increment", Kind: Int, Default: "4", Min: 0, Max: 30},
		{Name: "sql_quote_show_create", Kind: Bool, Default: "true"},
	}
}
