package paimon

import (
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// rowGroupMayMatch prunes a Parquet row group by its column chunk
// statistics. Only top-level integer, floating point and string columns are
// used; anything else counts as unknown and never prunes.
func rowGroupMayMatch(p *bound, rg *metadata.RowGroupMetaData, fr *pqarrow.FileReader, want []DataField, src []int) bool {
	rows := rg.NumRows()
	return p.mayMatch(func(name string) colStats {
		for i, w := range want {
			if w.Name != name || src[i] < 0 {
				continue
			}
			sf := fr.Manifest.Fields[src[i]]
			if !sf.IsLeaf() {
				return colStats{}
			}
			cc, err := rg.ColumnChunk(sf.ColIndex)
			if err != nil {
				return colStats{}
			}
			if ok, err := cc.StatsSet(); err != nil || !ok {
				return colStats{}
			}
			st, err := cc.Statistics()
			if err != nil || st == nil {
				return colStats{}
			}
			cs := colStats{nullCount: -1, known: true}
			if st.HasNullCount() {
				cs.nullCount = st.NullCount()
			}
			if !st.HasMinMax() {
				if cs.nullCount < 0 {
					return colStats{}
				}
				return cs
			}
			switch s := st.(type) {
			case *metadata.Int32Statistics:
				switch w.Type.Root {
				case TinyInt, SmallInt, Int, Date:
					cs.min, cs.max = int64(s.Min()), int64(s.Max())
				}
			case *metadata.Int64Statistics:
				if w.Type.Root == BigInt {
					cs.min, cs.max = s.Min(), s.Max()
				}
			case *metadata.Float32Statistics:
				if w.Type.Root == Float {
					cs.min, cs.max = float64(s.Min()), float64(s.Max())
				}
			case *metadata.Float64Statistics:
				if w.Type.Root == Double {
					cs.min, cs.max = s.Min(), s.Max()
				}
			case *metadata.ByteArrayStatistics:
				if w.Type.Root == VarChar || w.Type.Root == Char {
					cs.min, cs.max = string(s.Min()), string(s.Max())
				}
			}
			// NaN bounds are not ordered reliably by writers.
			if f, ok := cs.min.(float64); ok && f != f {
				cs.min, cs.max = nil, nil
			}
			if f, ok := cs.max.(float64); ok && f != f {
				cs.min, cs.max = nil, nil
			}
			return cs
		}
		return colStats{}
	}, rows)
}
