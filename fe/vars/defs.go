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
	// case-insensitively); a String variable folds these spellings and
	// keeps any other value as typed.
	Values []string
	// ReadOnly variables can be read but not SET.
	ReadOnly bool
	// GlobalOnly variables can only be SET GLOBAL.
	GlobalOnly bool
	// Check validates a String variable's value.
	Check func(v string) error
	// Bytes marks an Int variable that holds a data volume: besides a plain
	// integer it takes Doris's units (16G, '512MB'), stored as bytes.
	Bytes bool
}

const maxInt = int64(1<<63 - 1)

// Defs returns the definitions of all variables Inlet knows, with Doris
// names and defaults. versionComment and timeZone come from the FE config.
func Defs(versionComment, timeZone string) []Def {
	return []Def{
		// Fluss catalog and scan behaviour (fluss-catalog spec).
		// A String, not an Enum: Doris accepts any value at SET and the
		// query that reads it refuses a bad one (naming the variable), so a
		// typo fails the statements that depend on it, not the SET.
		{Name: "fluss_union_read_mode", Kind: String, Default: "", Values: []string{"", "auto", "required", "disabled"}},
		// Where a tbl$changelog read starts (Fluss's scan.startup.mode and
		// scan.startup.timestamp); Strings for the same reason.
		{Name: "fluss_changelog_startup_mode", Kind: String, Default: "earliest", Values: []string{"earliest", "latest", "timestamp"}},
		{Name: "fluss_changelog_startup_timestamp", Kind: String, Default: ""},
		{Name: "max_file_scanners_concurrency", Kind: Int, Default: "16", Min: 1, Max: 1 << 16},
		{Name: "enable_jni_heap_admission", Kind: Bool, Default: "false"},
		{Name: "force_jni_scanner", Kind: Bool, Default: "false"},
		// Send a Fluss log read's pushable filter conjuncts with its fetches
		// (Fluss 1.0 filter_predicate), so tablet servers skip batches whose
		// statistics cannot match; the BE still applies the whole filter.
		{Name: "fluss_log_filter_pushdown", Kind: Bool, Default: "true"},
		// Let BEs stop a WHERE … LIMIT n once n rows passed the filters, and
		// each range return only its Top-N under ORDER BY … LIMIT (stopping
		// a key-ordered lake split early); off, the FE alone applies them.
		{Name: "fluss_limit_pushdown", Kind: Bool, Default: "true"},
		// How many LOG ranges a union read's log tail of a bucket may be
		// cut into (at least 32 Ki records each), read side by side; 1
		// reads it as one range.
		{Name: "fluss_log_tail_pieces", Kind: Int, Default: "4", Min: 1, Max: 64},
		{Name: "file_split_size", Kind: Int, Default: "0", Min: 0, Max: maxInt},
		{Name: "enable_prune_nested_column", Kind: Bool, Default: "true"},
		{Name: "time_zone", Kind: String, Default: timeZone, Check: checkTimeZone},
		{Name: "system_time_zone", Kind: String, Default: timeZone, ReadOnly: true},

		// Query execution knobs Doris users expect to exist.
		{Name: "batch_size", Kind: Int, Default: "4064", Min: 1, Max: 1 << 20, GlobalMin: 256},
		{Name: "query_timeout", Kind: Int, Default: "900", Min: 1, Max: 1 << 31, GlobalMin: 10},
		{Name: "exec_mem_limit", Kind: Int, Default: "2147483648", Min: 1, Max: maxInt, Bytes: true, GlobalMin: 64 << 20},
		{Name: "parallel_pipeline_task_num", Kind: Int, Default: "0", Min: 0, Max: 1024},
		{Name: "sql_select_limit", Kind: Int, Default: "9223372036854775807", Min: 0, Max: maxInt},
		{Name: "default_order_by_limit", Kind: Int, Default: "-1", Min: -1, Max: maxInt},
		{Name: "enable_profile", Kind: Bool, Default: "false"},
		// Hash join, hash aggregation and sort write to disk past their
		// share of exec_mem_limit instead of failing (Doris, off by default).
		{Name: "enable_spill", Kind: Bool, Default: "false"},

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

		// Doris variables its regression suites, tools and connectors set.
		// They are accepted and listed with Doris's defaults, and change
		// nothing here: there is one planner, one (v2) file scanner, one
		// pipeline engine, and no result or SQL cache.
		{Name: "enable_file_scanner_v2", Kind: Bool, Default: "true"},
		{Name: "enable_nereids_planner", Kind: Bool, Default: "true"},
		{Name: "experimental_enable_nereids_planner", Kind: Bool, Default: "true"},
		{Name: "enable_fallback_to_original_planner", Kind: Bool, Default: "false"},
		{Name: "enable_pipeline_engine", Kind: Bool, Default: "true"},
		{Name: "enable_pipeline_x_engine", Kind: Bool, Default: "true"},
		{Name: "enable_vectorized_engine", Kind: Bool, Default: "true"},
		{Name: "enable_local_shuffle", Kind: Bool, Default: "true"},
		{Name: "enable_sql_cache", Kind: Bool, Default: "false"},
		{Name: "enable_query_cache", Kind: Bool, Default: "false"},
		{Name: "enable_common_expr_pushdown", Kind: Bool, Default: "true"},
		{Name: "enable_two_phase_read_opt", Kind: Bool, Default: "true"},
		{Name: "enable_insert_strict", Kind: Bool, Default: "true"},
		{Name: "enable_strict_consistency_dml", Kind: Bool, Default: "true"},
		{Name: "enable_external_table_batch_mode", Kind: Bool, Default: "true"},
		{Name: "enable_count_push_down_for_external_table", Kind: Bool, Default: "true"},
		{Name: "show_hidden_columns", Kind: Bool, Default: "false"},
		{Name: "return_object_data_as_binary", Kind: Bool, Default: "false"},
		{Name: "dry_run_query", Kind: Bool, Default: "false"},
		{Name: "parallel_fragment_exec_instance_num", Kind: Int, Default: "8", Min: 1, Max: 1024},
		{Name: "insert_timeout", Kind: Int, Default: "14400", Min: 1, Max: 1 << 31},
		{Name: "max_execution_time", Kind: Int, Default: "0", Min: 0, Max: 1 << 31},
		{Name: "group_concat_max_len", Kind: Int, Default: "2147483646", Min: 4, Max: maxInt},
		{Name: "topn_opt_limit_threshold", Kind: Int, Default: "1024", Min: 0, Max: maxInt},
		{Name: "runtime_filter_mode", Kind: String, Default: "GLOBAL", Check: checkRFMode},
		{Name: "runtime_filter_type", Kind: String, Default: "IN_OR_BLOOM_FILTER,MIN_MAX", Check: checkRFTypes},
		{Name: "runtime_filter_max_in_num", Kind: Int, Default: "1024", Min: 0, Max: 1 << 24},
		{Name: "disable_nereids_rules", Kind: String, Default: ""},
		{Name: "workload_group", Kind: String, Default: ""},
		{Name: "resource_group", Kind: String, Default: ""},
	}
}
