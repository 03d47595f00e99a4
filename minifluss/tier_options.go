package minifluss

import (
	"sort"
	"strings"
)

// paimonUnsettable are the Paimon options Fluss derives itself (bucket
// count and key from the distribution, the table path, the partition
// naming); like Fluss's PaimonConversions it refuses them as paimon.*
// table properties, so a user option can never contradict the layout
// tiering writes.
var paimonUnsettable = map[string]bool{"bucket": true, "bucket-key": true, "path": true, "partition.legacy-name": true}

// checkPaimonOptions returns the error Fluss gives for a property that
// names an unsettable Paimon option (with or without the paimon. prefix).
func checkPaimonOptions(t *table) error {
	for _, props := range []map[string]string{t.Desc.Properties, t.Desc.CustomProperties} {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if paimonUnsettable[strings.TrimPrefix(k, "paimon.")] {
				return ferr(codeInvalidConfig, "The Paimon option %s will be set automatically by Fluss and should not be set manually.", k)
			}
		}
	}
	return nil
}
