package colstats

import (
	"github.com/inlet-db/inlet/catalog"
)

// Merge lays the statistics of an ANALYZE (analyzed) over those a lake's
// manifests report now (manifest), for the optimizer. An analysed column
// keeps what ANALYZE counted (its rows, NULLs, NDV and data size, which
// manifests cannot give or, for a Fluss table's log tail and a
// primary-key table's stored versions, count otherwise) with its bounds
// widened by the manifests' current ones, in the manifests' typed text
// where those are the wider. The result's Rows are the analysed rows: the
// optimizer scales a key-like NDV by the table's current row count
// (catalog.RowCounter, from the manifests) over them when the table grew
// since. A column ANALYZE did not cover is the manifests'. Either argument
// may be nil; neither is modified.
func Merge(manifest, analyzed *catalog.TableStats) *catalog.TableStats {
	if analyzed == nil {
		return manifest
	}
	if manifest == nil || len(manifest.Columns) == 0 {
		return analyzed
	}
	out := &catalog.TableStats{Rows: analyzed.Rows, UpdatedMS: analyzed.UpdatedMS,
		Columns: make(map[string]catalog.ColumnStats, max(len(manifest.Columns), len(analyzed.Columns)))}
	for name, a := range analyzed.Columns {
		if m, ok := manifest.Columns[name]; ok {
			b := widen(m, a)
			a.Min, a.Max, a.Numeric, a.Lo, a.Hi = b.Min, b.Max, b.Numeric, b.Lo, b.Hi
		}
		out.Columns[name] = a
	}
	for name, m := range manifest.Columns {
		if _, ok := out.Columns[name]; !ok {
			out.Columns[name] = m
		}
	}
	return out
}

// widen is base with its bounds widened by other's: other's when base has
// none, the union when both are numbers. Text bounds of base are kept
// (manifests may truncate strings, ANALYZE quotes them: not comparable).
func widen(base, other catalog.ColumnStats) catalog.ColumnStats {
	switch {
	case base.Min == "" && base.Max == "":
		base.Min, base.Max, base.Numeric, base.Lo, base.Hi = other.Min, other.Max, other.Numeric, other.Lo, other.Hi
	case base.Numeric && other.Numeric:
		if other.Lo < base.Lo {
			base.Lo, base.Min = other.Lo, other.Min
		}
		if other.Hi > base.Hi {
			base.Hi, base.Max = other.Hi, other.Max
		}
	}
	return base
}
