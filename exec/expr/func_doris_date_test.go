package expr

import "testing"

// TestDorisDateFunctions: examples quoted from Doris's manual pages
// (date-time-functions: DATE_FLOOR, HOUR_CEIL, CONVERT_TZ, FROM_SECOND,
// TO_MONDAY, TIME_TO_SEC, SEC_TO_TIME, TIMEDIFF, TO_ISO8601,
// FROM_ISO8601_DATE, TIMESTAMP) marked "doc", the rest derived by hand.
// Inlet types a string constant with a fraction as DATETIME(6), so such
// results print six digits where Doris prints the literal's scale.
func TestDorisDateFunctions(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	d, ts := c["d"], c["ts"]
	S := func(v string) Expr { return Str(v) }
	dateLit := func(v string) Expr { return must(Cast(S(v), Date32T())) }
	runDorisCases(t, []dorisCase{
		// date_floor / date_ceil (doc: 5 SECOND, 5 DAY, 5 YEAR, 5 WEEK).
		{name: "date_floor", args: []Expr{S("0001-01-01 00:00:18"), Int(5), S("SECOND")}, want: "0001-01-01 00:00:15"},
		{name: "date_floor", args: []Expr{S("2023-07-10 00:00:00"), Int(5), S("DAY")}, want: "2023-07-10 00:00:00"},
		{name: "date_floor", args: []Expr{S("2023-07-13"), Int(5), S("YEAR")}, want: "2021-01-01 00:00:00"},
		{name: "date_floor", args: []Expr{S("2023-07-13 22:28:18"), Int(5), S("WEEK")}, want: "2023-07-10 00:00:00"},
		{name: "date_floor", args: []Expr{nullS(), Int(5), S("HOUR")}, want: "NULL"},
		{name: "date_ceil", args: []Expr{S("2023-07-13 22:28:18"), Int(5), S("minute")}, want: "2023-07-13 22:30:00"},
		// hour_ceil (doc examples).
		{name: "hour_ceil", args: []Expr{S("2023-07-13 22:28:18"), Int(5)}, want: "2023-07-13 23:00:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 19:30:00"), Int(4), S("2023-07-13 08:00:00")}, want: "2023-07-13 20:00:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 00:30:00"), Int(6), S("2023-07-13")}, want: "2023-07-13 06:00:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 01:00:00")}, want: "2023-07-13 01:00:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 22:28:18"), S("2023-07-01 12:12:00")}, want: "2023-07-13 23:12:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 19:30:00"), Int(4), S("2023-07-13 08:00:00.123")}, want: "2023-07-13 20:00:00.123000"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 19:30:00"), Int(4), S("2028-07-14 08:00:00")}, want: "2023-07-13 20:00:00"},
		{name: "hour_ceil", args: []Expr{S("2023-07-13 22:28:18"), Null(Int64T())}, want: "NULL"},
		// Hand-derived: months since 0001-01 of 2023-07 is 24270.
		{name: "month_floor", args: []Expr{S("2023-07-13 22:28:18"), Int(4)}, want: "2023-05-01 00:00:00"},
		{name: "month_ceil", args: []Expr{S("2023-07-13 22:28:18"), Int(4)}, want: "2023-09-01 00:00:00"},
		{name: "month_ceil", args: []Expr{S("2023-07-01 00:00:00")}, want: "2023-07-01 00:00:00"},
		{name: "quarter_floor", args: []Expr{S("2023-08-13 10:00:00")}, want: "2023-07-01 00:00:00"},
		{name: "year_ceil", args: []Expr{S("2023-08-13 10:00:00")}, want: "2024-01-01 00:00:00"},
		{name: "minute_floor", args: []Expr{S("2023-07-13 22:28:18"), Int(15)}, want: "2023-07-13 22:15:00"},
		{name: "second_ceil", args: []Expr{S("2023-07-13 22:28:18.5")}, want: "2023-07-13 22:28:19.000000"},
		{name: "day_floor", args: []Expr{S("2023-07-13 22:28:18"), Int(1), S("2023-07-01 06:00:00")}, want: "2023-07-13 06:00:00"},
		// Over columns: a DATE stays a DATE for units of a day or more.
		{name: "year_floor", args: []Expr{d}, rows: []string{"2024-01-01", "2023-01-01", "NULL"}},
		{name: "week_floor", args: []Expr{d}, rows: []string{"2024-01-29", "2023-11-27", "NULL"}},
		{name: "hour_floor", args: []Expr{d}, rows: []string{"2024-01-31 00:00:00", "2023-12-01 00:00:00", "NULL"}},
		{name: "day_ceil", args: []Expr{ts}, rows: []string{"2024-01-03 00:00:00.000000", "2023-06-16 00:00:00.000000", "NULL"}},
		// convert_tz (doc), unknown zones give NULL.
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03"), S("Asia/Shanghai"), S("America/Los_Angeles")}, want: "2019-07-31 22:21:03"},
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03"), S("+08:00"), S("America/Los_Angeles")}, want: "2019-07-31 22:21:03"},
		{name: "convert_tz", args: []Expr{dateLit("2019-08-01"), S("Asia/Shanghai"), S("America/Los_Angeles")}, want: "2019-07-31 09:00:00"},
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03.636"), S("+08:00"), S("America/Los_Angeles")}, want: "2019-07-31 22:21:03.636000"},
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03"), S("+08:00"), S("America/Los_Anges")}, want: "NULL"},
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03"), S("utc"), S("-05:30")}, want: "2019-08-01 07:51:03"},
		{name: "convert_tz", args: []Expr{S("2019-08-01 13:21:03"), nullS(), S("UTC")}, want: "NULL"},
		{name: "convert_tz", args: []Expr{ts, S("UTC"), S("+01:00")}, rows: []string{"2024-01-02 04:04:05.000000", "2023-06-16 00:59:59.000000", "NULL"}},
		// Epoch conversions (session zone UTC here; doc's 1700000000 is
		// 2023-11-15 06:13:20 at +08:00).
		{name: "from_second", args: []Expr{Int(1700000000)}, want: "2023-11-14 22:13:20"},
		{name: "from_second", args: []Expr{Int(0)}, want: "1970-01-01 00:00:00"},
		{name: "from_millisecond", args: []Expr{Int(1700000000123)}, want: "2023-11-14 22:13:20.123"},
		{name: "from_microsecond", args: []Expr{Int(1700000000123456)}, want: "2023-11-14 22:13:20.123456"},
		{name: "from_second", args: []Expr{Null(Int64T())}, want: "NULL"},
		{name: "millisecond_timestamp", args: []Expr{S("2023-11-14 22:13:20.123")}, want: "1700000000123"},
		{name: "microsecond_timestamp", args: []Expr{S("2023-11-14 22:13:20.123")}, want: "1700000000123000"},
		{name: "second_timestamp", args: []Expr{S("1970-01-01 00:00:01")}, want: "1"},
		// Sub-second arithmetic.
		{name: "microseconds_add", args: []Expr{S("2024-01-02 03:04:05"), Int(1500)}, want: "2024-01-02 03:04:05.001500"},
		{name: "milliseconds_add", args: []Expr{S("2024-01-02 03:04:05"), Int(1500)}, want: "2024-01-02 03:04:06.500000"},
		{name: "milliseconds_sub", args: []Expr{ts, Int(1500)}, rows: []string{"2024-01-02 03:04:03.500000", "2023-06-15 23:59:57.500000", "NULL"}},
		{name: "microseconds_sub", args: []Expr{d, Int(1)}, rows: []string{"2024-01-30 23:59:59.999999", "2023-11-30 23:59:59.999999", "NULL"}},
		{name: "milliseconds_diff", args: []Expr{S("2024-01-01 00:00:01.5"), S("2024-01-01 00:00:00")}, want: "1500"},
		{name: "milliseconds_diff", args: []Expr{S("2024-01-01 00:00:00"), S("2024-01-01 00:00:01.5009")}, want: "-1500"},
		// to_monday (doc).
		{name: "to_monday", args: []Expr{S("2022-09-10")}, want: "2022-09-05"},
		{name: "to_monday", args: []Expr{S("2022-09-10 12:22:15")}, want: "2022-09-05"},
		{name: "to_monday", args: []Expr{S("1022-09-10")}, want: "1022-09-09"},
		{name: "to_monday", args: []Expr{S("2023-10-09")}, want: "2023-10-09"},
		{name: "to_monday", args: []Expr{S("1970-01-02")}, want: "1970-01-01"},
		{name: "to_monday", args: []Expr{S("1970-01-04")}, want: "1970-01-01"},
		{name: "to_monday", args: []Expr{S("1970-01-05")}, want: "1970-01-05"},
		{name: "to_monday", args: []Expr{d}, rows: []string{"2024-01-29", "2023-11-27", "NULL"}},
		// TIME (doc: TIME_TO_SEC, SEC_TO_TIME, TIMEDIFF).
		{name: "time_to_sec", args: []Expr{S("16:32:18")}, want: "59538"},
		{name: "time_to_sec", args: []Expr{S("2025-01-01 16:32:18")}, want: "NULL"},
		{name: "time_to_sec", args: []Expr{S("-02:30:00")}, want: "-9000"},
		{name: "time_to_sec", args: []Expr{S("-16:32:18.99")}, want: "-59538"},
		{name: "time_to_sec", args: []Expr{S("10:15:30.123456")}, want: "36930"},
		{name: "time_to_sec", args: []Expr{S("12:60:00")}, want: "NULL"},
		{name: "time_to_sec", args: []Expr{S("839:00:00")}, want: "NULL"},
		{name: "time_to_sec", args: []Expr{ts}, rows: []string{"11045", "86399", "NULL"}},
		{name: "sec_to_time", args: []Expr{Int(59738)}, want: "16:35:38"},
		{name: "sec_to_time", args: []Expr{Int(90061)}, want: "25:01:01"},
		{name: "sec_to_time", args: []Expr{Int(-3600)}, want: "-01:00:00"},
		{name: "sec_to_time", args: []Expr{Int(0)}, want: "00:00:00"},
		{name: "sec_to_time", args: []Expr{Float(3661.9)}, want: "01:01:01.900000"},
		{name: "sec_to_time", args: []Expr{Int(30245000)}, want: "838:59:59"},
		{name: "sec_to_time", args: []Expr{Int(-30245000)}, want: "-838:59:59"},
		{name: "time_to_sec", args: []Expr{must(Func("sec_to_time", Int(-30245000)))}, want: "-3020399"}, // 838*3600+59*60+59
		{name: "timediff", args: []Expr{S("2024-07-20 16:59:30"), S("2024-07-11 16:35:21")}, want: "216:24:09"},
		{name: "timediff", args: []Expr{S("2023-10-05 15:45:00"), S("2023-10-05")}, want: "15:45:00"},
		{name: "timediff", args: []Expr{S("2023-01-01 09:00:00"), S("2023-01-01 10:30:00")}, want: "-01:30:00"},
		{name: "timediff", args: []Expr{S("2024-01-01 00:00:01"), S("2023-12-31 23:59:59")}, want: "00:00:02"},
		{name: "timediff", args: []Expr{S("2023-07-13 12:34:56.789"), S("2023-07-13 12:34:50.123")}, want: "00:00:06.666000"},
		{name: "timediff", args: []Expr{nullS(), S("2023-01-01 00:00:00")}, want: "NULL"},
		{name: "curtime", args: nil, want: "07:08:09"},
		{name: "current_time", args: []Expr{Int(6)}, want: "07:08:09.123456"},
		// ISO 8601 (doc).
		{name: "to_iso8601", args: []Expr{dateLit("2023-10-05")}, want: "2023-10-05"},
		{name: "to_iso8601", args: []Expr{S("2020-01-01 12:30:45")}, want: "2020-01-01T12:30:45.000000"},
		{name: "to_iso8601", args: []Expr{S("2020-01-01 12:30:45.956")}, want: "2020-01-01T12:30:46.000000"},
		{name: "to_iso8601", args: []Expr{S("2023-02-30")}, want: "NULL"},
		{name: "from_iso8601_date", args: []Expr{S("2023")}, want: "2023-01-01"},
		{name: "from_iso8601_date", args: []Expr{S("2023-10")}, want: "2023-10-01"},
		{name: "from_iso8601_date", args: []Expr{S("2023-10-05")}, want: "2023-10-05"},
		{name: "from_iso8601_date", args: []Expr{S("2021-060")}, want: "2021-03-01"},
		{name: "from_iso8601_date", args: []Expr{S("2024-366")}, want: "2024-12-31"},
		{name: "from_iso8601_date", args: []Expr{S("0522-W01-1")}, want: "0521-12-29"},
		{name: "from_iso8601_date", args: []Expr{S("0522-W01-4")}, want: "0522-01-01"},
		{name: "from_iso8601_date", args: []Expr{S("0522-W01")}, want: "0521-12-29"},
		{name: "from_iso8601_date", args: []Expr{S("2023-10-01T12:34:10")}, want: "NULL"},
		{name: "from_iso8601_date", args: []Expr{S("2024-400")}, want: "NULL"},
		{name: "from_iso8601_date", args: []Expr{S("2023-02-29")}, want: "NULL"},
		// timestamp() (doc).
		{name: "timestamp", args: []Expr{S("2019-01-01 12:00:00")}, want: "2019-01-01 12:00:00"},
		{name: "timestamp", args: []Expr{S("2019-01-01")}, want: "2019-01-01 00:00:00"},
		{name: "timestamp", args: []Expr{S("2025-11-30 23:45:12"), S("12:34:56")}, want: "2025-12-01 12:20:08"},
		{name: "timestamp", args: []Expr{S("12:34:56"), S("12:34:56")}, want: "NULL"},
		{name: "timestamp", args: []Expr{S("2025-12-01"), nullS()}, want: "NULL"},
		{name: "timestamp", args: []Expr{d, S("-01:00:00")}, rows: []string{"2024-01-30 23:00:00", "2023-11-30 23:00:00", "NULL"}},
	})
	runErrCases(t, []errCase{
		{"hour_ceil", []Expr{S("9999-12-31 22:28:18"), Int(6)}, ErrOverflow}, // doc
		{"hour_ceil", []Expr{S("2023-07-13 22:28:18"), Int(0)}, ErrOverflow}, // doc
		{"date_floor", []Expr{S("2023-07-13 22:28:18"), Int(-5), S("MINUTE")}, ErrOverflow},
		{"date_floor", []Expr{S("2023-07-13 22:28:18"), Int(5), S("MILLISECOND")}, ErrUnsupported},
		{"from_second", []Expr{Int(-1)}, ErrOverflow},                                                 // doc
		{"from_second", []Expr{Int(999999999999999)}, ErrOverflow},                                    // doc
		{"timediff", []Expr{S("2023-07-13 12:34:56.789"), S("2024-07-13 12:34:50.123")}, ErrOverflow}, // doc
		{"year_floor", []Expr{S("2023-07-13"), S("x"), S("y")}, ErrType},
	})
}
