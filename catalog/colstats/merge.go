package colstats

import (
	"math"

	"github.com/inlet-db/inlet/catalog"
)

// Merge lays the statistics of an ANALYZE (analyzed) over those a lake's
// manifests report now (manifest), for the optimizer. The distinct counts
// and data sizes are the analysed ones, which manifests cannot give. Row
// and null counts are those of the side that covers more rows: the
// manifests' once the table grew since the ANALYZE (they are current with
// every snapshot), else the analysed ones (a Fluss table's ANALYZE also
// read the log tail its lake's manifests lack; a primary-key table's
// manifests count stored versions, ANALYZE merged rows). Bounds are the
// union of both, never narrower than either. When the manifests' rows
// outgrew the analysed ones, a key-like column's NDV (more than half its
// rows distinct) and every data size grow in proportion, as a key grows
// with its table; other NDVs are kept, capped at the non-null rows. A
// column only one side knows is that side's. Either argument may be nil;
// neither is modified.
func Merge(manifest, analyzed *catalog.TableStats) *catalog.TableStats {
	if analyzed == nil {
		return manifest
	}
	if manifest == nil || manifest.Rows <= analyzed.Rows {
		if manifest == nil || len(manifest.Columns) == 0 {
			return analyzed
		}
		out := &catalog.TableStats{Rows: analyzed.Rows, UpdatedMS: analyzed.UpdatedMS, Columns: make(map[string]catalog.ColumnStats, len(analyzed.Columns))}
		for name, a := range analyzed.Columns {
			if m, ok := manifest.Columns[name]; ok {
				// The manifests' text of the bounds (typed: decimals
				// keep their scale) unless ANALYZE saw wider ones.
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
	out := &catalog.TableStats{Rows: manifest.Rows, UpdatedMS: analyzed.UpdatedMS,
		Columns: make(map[string]catalog.ColumnStats, max(len(manifest.Columns), len(analyzed.Columns)))}
	ratio := 1.0
	if analyzed.Rows > 0 {
		ratio = float64(manifest.Rows) / float64(analyzed.Rows)
	}
	for name, a := range analyzed.Columns {
		m, ok := manifest.Columns[name]
		if !ok {
			out.Columns[name] = a
			continue
		}
		cs := widen(m, a)
		ndv := float64(a.NDV)
		if a.NDV*2 > analyzed.Rows {
			ndv *= ratio
		}
		nonNull := m.Count - m.Nulls
		cs.NDV = int64(math.Round(math.Min(ndv, float64(nonNull))))
		if a.NDV > 0 && nonNull > 0 {
			cs.NDV = max(cs.NDV, 1)
		}
		cs.DataSize = int64(math.Round(float64(a.DataSize) * ratio))
		out.Columns[name] = cs
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
