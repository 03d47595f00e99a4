package record

import (
	"fmt"
	"strings"
)

// LakeFormat is table.datalake.format. It decides key encoding and the
// bucket hash even when the lake itself is not enabled.
type LakeFormat uint8

// Lake formats ("" = none).
const (
	LakeNone LakeFormat = iota
	LakePaimon
	LakeIceberg
	LakeLance
	LakeHudi
)

func (f LakeFormat) String() string {
	switch f {
	case LakePaimon:
		return "paimon"
	case LakeIceberg:
		return "iceberg"
	case LakeLance:
		return "lance"
	case LakeHudi:
		return "hudi"
	}
	return ""
}

// ParseLakeFormat reads table.datalake.format (case-insensitive; "" = none).
func ParseLakeFormat(s string) (LakeFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return LakeNone, nil
	case "paimon":
		return LakePaimon, nil
	case "iceberg":
		return LakeIceberg, nil
	case "lance":
		return LakeLance, nil
	case "hudi":
		return LakeHudi, nil
	}
	return 0, fmt.Errorf("%w: table.datalake.format %q (want paimon, iceberg, lance or hudi)", ErrUnsupported, s)
}
