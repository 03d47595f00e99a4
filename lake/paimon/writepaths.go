package paimon

import "fmt"

// BucketDir is the directory a writer puts the data files of (partition,
// bucket) in, computed exactly as the reader computes it (data-file
// path-directory, partition.legacy-name, partition.default-name, escaping),
// so written files are found again. part holds partition values in key
// order, in the Go types DeserializeRow returns.
func (t *Table) BucketDir(schema *TableSchema, part []any, bucket int32) (string, error) {
	o, err := parseOptions(schema.Options)
	if err != nil {
		return "", err
	}
	if len(part) != len(schema.PartitionKeys) {
		return "", fmt.Errorf("paimon: table %s: %d partition values for partition keys %v", t.path, len(part), schema.PartitionKeys)
	}
	return t.bucketDir(schema, o, part, bucket), nil
}
