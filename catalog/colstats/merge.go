package colstats

import (
	"math"

	"github.com/inlet-db/inlet/catalog"
)

// Merge lays the statistics of an ANALYZE (analyzed) over those a lake's
// manifests report now (manifest), for the optimizer: row counts, null
// counts and bounds stay the manifests' (current with every snapshot),
// widened by the analysed bounds (which may cover rows the manifests do
// not, a Fluss log tail); the distinct counts and data sizes are the
// analysed ones, which manifests cannot give. When the rows changed since
// the ANALYZE, a key-like column's NDV (more than half its rows distinct)
// and every data size are scaled by the ratio of the rows, as a key grows
// with its table; other NDVs are kept, capped at the non-null rows. A
// column only one side knows is that side's. Either argument may be nil;
// neither is modified.
func Merge(manifest, analyzed *catalog.TableStats) *catalog.TableStats {
	if analyzed == nil {
		return manifest
	}
	if manifest == nil || manifest.Rows <= 0 {
		return analyzed
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
		out.Columns[name] = mergeColumn(m, a, ratio, analyzed.Rows)
	}
	for name, m := range manifest.Columns {
		if _, ok := out.Columns[name]; !ok {
			out.Columns[name] = m
		}
	}
	return out
}

func mergeColumn(m, a catalog.ColumnStats, ratio float64, analyzedRows int64) catalog.ColumnStats {
	cs := m
	ndv := float64(a.NDV)
	if a.NDV*2 > analyzedRows {
		ndv *= ratio
	}
	nonNull := m.Count - m.Nulls
	cs.NDV = int64(math.Round(math.Min(ndv, float64(nonNull))))
	if a.NDV > 0 && nonNull > 0 {
		cs.NDV = max(cs.NDV, 1)
	}
	cs.DataSize = int64(math.Round(float64(a.DataSize) * ratio))
	switch {
	case m.Min == "" && m.Max == "":
		cs.Min, cs.Max, cs.Numeric, cs.Lo, cs.Hi = a.Min, a.Max, a.Numeric, a.Lo, a.Hi
	case m.Numeric && a.Numeric:
		if a.Lo < m.Lo {
			cs.Lo, cs.Min = a.Lo, a.Min
		}
		if a.Hi > m.Hi {
			cs.Hi, cs.Max = a.Hi, a.Max
		}
	}
	return cs
}
