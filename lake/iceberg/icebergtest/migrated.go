package icebergtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/lake/orc"
)

// MigratedPartitions are the Hive partitions of Migrated: the directory
// region=<r>/day=<d> and the data file's rows (id, item, qty, price as
// JSON; the partition columns are in no file). The last one is ORC, the
// others Parquet.
var MigratedPartitions = []struct {
	Region, Day string
	Rows        string
}{
	{"east", "2024-01-01", `[{"id": 1, "item": "apple", "qty": 3, "price": "1.50"}, {"id": 2, "item": "pear", "qty": null, "price": "2.00"}]`},
	{"east", "2024-01-02", `[{"id": 3, "item": "plum", "qty": 5, "price": "0.75"}]`},
	{"west", "2024-01-01", `[{"id": 4, "item": "apple", "qty": 1, "price": "1.60"}, {"id": 5, "item": "fig", "qty": 7, "price": null}]`},
	{"west", "2024-01-03", `[{"id": 6, "item": "kiwi", "qty": 2, "price": "3.10"}]`},
}

// Migrated writes warehouse/<ns>/<name> as an in-place migration of a
// Hive table leaves it: data files named 000000_0 under region=/day=
// directories, without field ids, holding id, item, qty, price
// decimal(9,2) (MigratedPartitions); the Iceberg table partitioned by
// identity(region), identity(day), whose files' partition values live only
// in the manifests. After the migration the table renamed item to product
// and added note (string, in no file); schema.name-mapping.default maps
// product by both names, as Java Iceberg keeps it.
func Migrated(ctx context.Context, warehouse, ns, name string) error {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return err
	}
	defer cat.Close()
	if ok, _ := cat.CheckNamespaceExists(ctx, table.Identifier{ns}); !ok {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			return err
		}
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "item", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "qty", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.DecimalTypeOf(9, 2)},
		iceberg.NestedField{ID: 5, Name: "region", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 6, Name: "day", Type: iceberg.PrimitiveTypes.Date},
	)
	spec := iceberg.NewPartitionSpec(
		iceberg.PartitionField{SourceIDs: []int{5}, FieldID: 1000, Name: "region", Transform: iceberg.IdentityTransform{}},
		iceberg.PartitionField{SourceIDs: []int{6}, FieldID: 1001, Name: "day", Transform: iceberg.IdentityTransform{}})
	tbl, err := cat.CreateTable(ctx, table.Identifier{ns, name}, sc, catalog.WithPartitionSpec(&spec))
	if err != nil {
		return err
	}
	loc := strings.TrimPrefix(tbl.Location(), "file://")
	hive := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	}, nil)
	mem := memory.NewGoAllocator()
	var files []iceberg.DataFile
	for i, p := range MigratedPartitions {
		rec, _, err := array.RecordFromJSON(mem, hive, strings.NewReader(p.Rows))
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		format := iceberg.ParquetFile
		if i == len(MigratedPartitions)-1 {
			format = iceberg.OrcFile
			err = writeORC(&buf, rec, mem)
		} else {
			err = writeParquet(&buf, rec)
		}
		n := rec.NumRows()
		rec.Release()
		if err != nil {
			return err
		}
		path := filepath.Join(loc, "region="+p.Region, "day="+p.Day, "000000_0")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
		day, err := time.Parse(time.DateOnly, p.Day)
		if err != nil {
			return err
		}
		b, err := iceberg.NewDataFileBuilder(tbl.Spec(), iceberg.EntryContentData, path, format,
			map[int]any{1000: p.Region, 1001: iceberg.Date(day.Unix() / 86400)}, nil, nil, n, int64(buf.Len()))
		if err != nil {
			return err
		}
		files = append(files, b.Build())
	}
	tx := tbl.NewTransaction()
	if err := tx.AddDataFiles(ctx, files, nil); err != nil {
		return err
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		return err
	}
	tx = tbl.NewTransaction()
	if err := tx.UpdateSchema(true, false).RenameColumn([]string{"item"}, "product").
		AddColumn([]string{"note"}, iceberg.PrimitiveTypes.String, "", false, nil).Commit(); err != nil {
		return err
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		return err
	}
	note, ok := tbl.Schema().FindFieldByName("note")
	if !ok {
		return fmt.Errorf("migrated table %s: no column note after the update", name)
	}
	mapping := fmt.Sprintf(`[{"field-id": 1, "names": ["id"]}, {"field-id": 2, "names": ["item", "product"]},
		{"field-id": 3, "names": ["qty"]}, {"field-id": 4, "names": ["price"]}, {"field-id": 5, "names": ["region"]},
		{"field-id": 6, "names": ["day"]}, {"field-id": %d, "names": ["note"]}]`, note.ID)
	tx = tbl.NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{"schema.name-mapping.default": mapping}); err != nil {
		return err
	}
	_, err = tx.Commit(ctx)
	return err
}

func writeParquet(buf *bytes.Buffer, rec arrow.RecordBatch) error {
	w, err := pqarrow.NewFileWriter(rec.Schema(), buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}

func writeORC(buf *bytes.Buffer, rec arrow.RecordBatch, mem memory.Allocator) error {
	w, err := orc.NewWriter(buf, rec.Schema(), orc.WriterOptions{Mem: mem})
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}
