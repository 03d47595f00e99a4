package record

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/typemap"
)

// Partition names (§8): the partition values, in partition-key order,
// joined with "$" (ResolvedPartitionSpec#getPartitionName). Each value is a
// valid identifier: 1–200 chars of [A-Za-z0-9_-], not "." or "..", and not
// starting with "__" for user partitions. Typed values become strings as
// PartitionUtils.convertValueOfType does.

// ErrInvalidName marks a database, table or partition name Fluss rejects.
var ErrInvalidName = fmt.Errorf("%w: invalid name", ErrInvalid)

// MaxNameLength is the longest identifier Fluss accepts.
const MaxNameLength = 200

const internalPrefix = "__"

// DetectInvalidName returns the reason a name is not a valid Fluss
// identifier (TablePath#detectInvalidName), or "" when it is valid.
func DetectInvalidName(name string) string {
	switch {
	case name == "":
		return "the empty string is not allowed"
	case name == ".":
		return "'.' is not allowed"
	case name == "..":
		return "'..' is not allowed"
	case len(name) > MaxNameLength:
		return fmt.Sprintf("the length of '%s' is longer than the max allowed length %d", name, MaxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Sprintf("'%s' contains one or more characters other than ASCII alphanumerics, '_' and '-'", name)
		}
	}
	return ""
}

// ValidateName checks a database or table name; kind is "Database" or "Table".
func ValidateName(kind, name string) error {
	if r := DetectInvalidName(name); r != "" {
		return fmt.Errorf("%w: %s name %s is invalid: %s", ErrInvalidName, kind, name, r)
	}
	if strings.HasPrefix(name, internalPrefix) {
		return fmt.Errorf("%w: %s name %s is invalid: '__' is not allowed as prefix, since it is reserved for internal databases/internal tables/internal partitions in Fluss server", ErrInvalidName, kind, name)
	}
	return nil
}

// ValidatePartitionValues checks partition values; the "__" prefix is
// refused only when creating (isCreate), since 1.0 has internal partitions.
func ValidatePartitionValues(values []string, isCreate bool) error {
	for _, v := range values {
		if r := DetectInvalidName(v); r != "" {
			return fmt.Errorf("%w: The partition value %s is invalid: %s", ErrInvalidName, v, r)
		}
		if isCreate && strings.HasPrefix(v, internalPrefix) {
			return fmt.Errorf("%w: The partition value %s is invalid: '__' is not allowed as prefix, since it is reserved for internal databases/internal tables/internal partitions in Fluss server", ErrInvalidName, v)
		}
	}
	return nil
}

// PartitionName joins partition values with "$".
func PartitionName(values []string) string { return strings.Join(values, "$") }

// QualifiedPartitionName is the display form k1=v1/k2=v2.
func QualifiedPartitionName(keys, values []string) string {
	parts := make([]string, len(keys))
	for i := range keys {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		parts[i] = keys[i] + "=" + v
	}
	return strings.Join(parts, "/")
}

// SplitPartitionName splits a partition name into nKeys values.
func SplitPartitionName(name string, nKeys int) ([]string, error) {
	vals := strings.Split(name, "$")
	if len(vals) != nKeys {
		return nil, fmt.Errorf("%w: partition name %q has %d values, table has %d partition keys", ErrInvalid, name, len(vals), nKeys)
	}
	return vals, nil
}

// PartitionValueString renders a typed value as a partition value.
func PartitionValueString(t typemap.DataType, v any) (string, error) {
	bad := func() (string, error) {
		return "", fmt.Errorf("%w: %T %v as a %v partition value", ErrInvalid, v, v, t)
	}
	switch t.Root {
	case typemap.RootChar, typemap.RootString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case typemap.RootBoolean:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
	case typemap.RootBinary, typemap.RootBytes:
		if b, ok := v.([]byte); ok {
			return hex.EncodeToString(b), nil
		}
	case typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt, typemap.RootBigInt:
		switch x := v.(type) {
		case int8:
			if t.Root == typemap.RootTinyInt {
				return strconv.Itoa(int(x)), nil
			}
		case int16:
			if t.Root == typemap.RootSmallInt {
				return strconv.Itoa(int(x)), nil
			}
		case int32:
			if t.Root == typemap.RootInt {
				return strconv.Itoa(int(x)), nil
			}
		case int64:
			if t.Root == typemap.RootBigInt {
				return strconv.FormatInt(x, 10), nil
			}
		}
	case typemap.RootDate:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"), nil
		}
	case typemap.RootTime:
		if ms, ok := v.(int32); ok {
			return fmt.Sprintf("%02d-%02d-%02d_%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000), nil
		}
	case typemap.RootFloat, typemap.RootDouble:
		var f float64
		bitsz := 64
		switch x := v.(type) {
		case float32:
			f, bitsz = float64(x), 32
		case float64:
			f = x
		default:
			return bad()
		}
		s := JavaFloatString(f, bitsz)
		switch s {
		case "Infinity":
			return "Inf", nil
		case "-Infinity":
			return "-Inf", nil
		}
		return strings.ReplaceAll(s, ".", "_"), nil
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		if ts, ok := v.(Timestamp); ok {
			tm := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
			frac := strings.TrimRight(fmt.Sprintf("%09d", tm.Nanosecond()), "0")
			return tm.Format("2006-01-02-15-04-05") + "_" + frac, nil
		}
	default:
		return "", fmt.Errorf("%w: %v is not a valid partition key type", ErrUnsupported, t)
	}
	return bad()
}

// ParsePartitionValue turns a partition value string back into a typed
// value for the types whose text form round-trips exactly (CHAR, STRING,
// BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DATE, BINARY, BYTES). Other
// types return ErrUnsupported naming the type: their partition strings are
// lossy (FLOAT, DOUBLE, TIME, TIMESTAMP, TIMESTAMP_LTZ).
func ParsePartitionValue(t typemap.DataType, s string) (any, error) {
	bad := func(err error) (any, error) {
		return nil, fmt.Errorf("%w: partition value %q is not a %v: %v", ErrCorrupt, s, t, err)
	}
	switch t.Root {
	case typemap.RootChar, typemap.RootString:
		return s, nil
	case typemap.RootBoolean:
		b, err := strconv.ParseBool(s)
		if err != nil || (s != "true" && s != "false") {
			return bad(err)
		}
		return b, nil
	case typemap.RootTinyInt:
		v, err := strconv.ParseInt(s, 10, 8)
		if err != nil {
			return bad(err)
		}
		return int8(v), nil
	case typemap.RootSmallInt:
		v, err := strconv.ParseInt(s, 10, 16)
		if err != nil {
			return bad(err)
		}
		return int16(v), nil
	case typemap.RootInt:
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return int32(v), nil
	case typemap.RootBigInt:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return v, nil
	case typemap.RootDate:
		tm, err := time.Parse("2006-01-02", s)
		if err != nil {
			return bad(err)
		}
		return int32(tm.Unix() / 86400), nil
	case typemap.RootBinary, typemap.RootBytes:
		b, err := hex.DecodeString(s)
		if err != nil {
			return bad(err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: partition values of type %v do not round-trip", ErrUnsupported, t)
}

// AutoPartitionUnit is table.auto-partition.time-unit.
type AutoPartitionUnit uint8

// Auto-partition time units.
const (
	UnitHour AutoPartitionUnit = iota
	UnitDay
	UnitMonth
	UnitQuarter
	UnitYear
)

// ParseAutoPartitionUnit reads a time unit name (case-insensitive).
func ParseAutoPartitionUnit(s string) (AutoPartitionUnit, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "HOUR":
		return UnitHour, nil
	case "", "DAY":
		return UnitDay, nil
	case "MONTH":
		return UnitMonth, nil
	case "QUARTER":
		return UnitQuarter, nil
	case "YEAR":
		return UnitYear, nil
	}
	return 0, fmt.Errorf("%w: auto-partition time unit %q", ErrUnsupported, s)
}

// DefaultFormat is the unit's default value format.
func (u AutoPartitionUnit) DefaultFormat() string {
	return [...]string{"yyyyMMddHH", "yyyyMMdd", "yyyyMM", "yyyyQ", "yyyy"}[u]
}

// truncate moves t to the start of its unit.
func (u AutoPartitionUnit) truncate(t time.Time) time.Time {
	switch u {
	case UnitHour:
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, t.Location())
	case UnitDay:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	case UnitMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location())
	case UnitQuarter:
		return time.Date(t.Year(), (t.Month()-1)/3*3+1, 1, 0, 0, 0, 0, t.Location())
	}
	return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location())
}

func (u AutoPartitionUnit) add(t time.Time, n int) time.Time {
	switch u {
	case UnitHour:
		return t.Add(time.Duration(n) * time.Hour)
	case UnitDay:
		return t.AddDate(0, 0, n)
	case UnitMonth:
		return t.AddDate(0, n, 0)
	case UnitQuarter:
		return t.AddDate(0, 3*n, 0)
	}
	return t.AddDate(n, 0, 0)
}

// AutoPartitionName is the name of the auto partition offset units away
// from now (already in the table's time zone); format "" means the unit's
// default. Supported pattern letters: yyyy, MM, dd, HH, mm, ss, Q; other
// characters are literal.
func AutoPartitionName(now time.Time, u AutoPartitionUnit, format string, offset int) (string, error) {
	if format == "" {
		format = u.DefaultFormat()
	}
	return formatJavaTime(u.add(u.truncate(now), offset), format)
}

// IsPastAutoPartition reports a value (in format) naming a partition before
// the one now falls in; values that do not parse are not past.
func IsPastAutoPartition(value string, now time.Time, u AutoPartitionUnit, format string) bool {
	if format == "" {
		format = u.DefaultFormat()
	}
	cur, err := formatJavaTime(u.truncate(now), format)
	if err != nil || len(value) != len(cur) {
		return false
	}
	// The supported patterns are fixed-width digit fields, so names of one
	// format compare like the instants they name once they parse back.
	for i := 0; i < len(value); i++ {
		isDigit := value[i] >= '0' && value[i] <= '9'
		wantDigit := cur[i] >= '0' && cur[i] <= '9'
		if isDigit != wantDigit || !isDigit && value[i] != cur[i] {
			return false
		}
	}
	return value < cur
}

func formatJavaTime(t time.Time, f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); {
		j := i
		for j < len(f) && f[j] == f[i] {
			j++
		}
		run := f[i:j]
		switch run {
		case "yyyy":
			fmt.Fprintf(&b, "%04d", t.Year())
		case "MM":
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case "dd":
			fmt.Fprintf(&b, "%02d", t.Day())
		case "HH":
			fmt.Fprintf(&b, "%02d", t.Hour())
		case "mm":
			fmt.Fprintf(&b, "%02d", t.Minute())
		case "ss":
			fmt.Fprintf(&b, "%02d", t.Second())
		case "Q":
			fmt.Fprintf(&b, "%d", (int(t.Month())-1)/3+1)
		default:
			c := f[i]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				return "", fmt.Errorf("%w: time format pattern %q in %q", ErrUnsupported, run, f)
			}
			b.WriteString(run)
		}
		i = j
	}
	return b.String(), nil
}
