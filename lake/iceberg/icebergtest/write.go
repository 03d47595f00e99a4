package icebergtest

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

// OrdersSchema is the schema of Orders: id (required), customer, amount
// decimal(10,2), day, ts (timestamptz), region; partitioned by
// identity(region).
func OrdersSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "customer", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(10, 2)},
		iceberg.NestedField{ID: 4, Name: "day", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 5, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 6, Name: "region", Type: iceberg.PrimitiveTypes.String},
	)
}

// OrderRow is one row of Orders as the writer derives it from its id:
// customer c<id%17 as 3 digits>, amount id*1.25, day 2024-01-01 plus id%30
// days, ts 2024-01-01T00:00:00Z plus id minutes, region east (odd id) or
// west.
type OrderRow struct {
	ID       int64
	Customer string
	Cents    int64
	Day      time.Time
	TS       time.Time
	Region   string
}

// Order derives row id.
func Order(id int64) OrderRow {
	region := "west"
	if id%2 == 1 {
		region = "east"
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return OrderRow{ID: id, Customer: fmt.Sprintf("c%03d", id%17), Cents: id * 125, Day: base.AddDate(0, 0, int(id%30)),
		TS: base.Add(time.Duration(id) * time.Minute), Region: region}
}

// Orders writes warehouse/<ns>/orders (format v2, merge-on-read deletes)
// in four snapshots and returns their ids in commit order:
//  1. append ids 1..200;
//  2. delete id < 20 (position delete files);
//  3. equality delete of customer 'c005' (ids 22, 39, ..., 192 go; rows
//     appended later are not affected);
//  4. append ids 201..250.
func Orders(ctx context.Context, warehouse, ns string) ([]int64, error) {
	return orders(ctx, warehouse, ns, "orders", "2", true)
}

// OrdersV3 writes warehouse/<ns>/<name> as a format v3 table: ids 1..200
// appended, then id < 20 deleted merge-on-read, which v3 writes as
// deletion vectors. Its snapshot ids are returned.
func OrdersV3(ctx context.Context, warehouse, ns, name string) ([]int64, error) {
	return orders(ctx, warehouse, ns, name, "3", false)
}

func orders(ctx context.Context, warehouse, ns, name, version string, full bool) ([]int64, error) {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	return ordersIn(ctx, cat, ns, name, version, full)
}

// OrdersIn writes <ns>.orders as Orders does, through any iceberg-go
// catalog (a REST catalog server: the table's files go where the server
// places the table).
func OrdersIn(ctx context.Context, cat catalog.Catalog, ns string) ([]int64, error) {
	return ordersIn(ctx, cat, ns, "orders", "2", true)
}

func ordersIn(ctx context.Context, cat catalog.Catalog, ns, name, version string, full bool) ([]int64, error) {
	del := iceberg.LiteralPredicate(iceberg.OpLT, iceberg.Reference("id"), iceberg.NewLiteral(int64(20)))
	return ordersSeq(ctx, cat, ns, name, iceberg.Properties{"format-version": version}, 200, del, full)
}

// ordersSeq writes <ns>.<name> (partitioned by region, merge-on-read
// deletes, table properties props added) in up to four snapshots and
// returns their ids: ids 1..n appended; the rows del matches deleted
// (position deletes); unless !full stops there, an equality delete of
// customer 'c005', then ids n+1..n+50 appended.
func ordersSeq(ctx context.Context, cat catalog.Catalog, ns, name string, props iceberg.Properties, n int64, del iceberg.BooleanExpression, full bool) ([]int64, error) {
	if ok, _ := cat.CheckNamespaceExists(ctx, table.Identifier{ns}); !ok {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			return nil, err
		}
	}
	spec := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{6}, FieldID: 1000, Name: "region", Transform: iceberg.IdentityTransform{}})
	tp := iceberg.Properties{"format-version": "2", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	for k, v := range props {
		tp[k] = v
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{ns, name}, OrdersSchema(), catalog.WithPartitionSpec(&spec), catalog.WithProperties(tp))
	if err != nil {
		return nil, err
	}
	var ids []int64
	commit := func(t *table.Table, err error) error {
		if err != nil {
			return err
		}
		tbl = t
		ids = append(ids, t.CurrentSnapshot().SnapshotID)
		return nil
	}
	if err := commit(appendRows(ctx, tbl, 1, n)); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if err := commit(tbl.Delete(ctx, del, nil)); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	if !full {
		return ids, nil
	}
	if err := commit(equalityDelete(ctx, tbl, "c005")); err != nil {
		return nil, fmt.Errorf("equality delete: %w", err)
	}
	if err := commit(appendRows(ctx, tbl, n+1, n+50)); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	return ids, nil
}

// OrdersBig writes warehouse/<ns>/<name> as Orders does at scale, with
// table properties props (page size, say): ids 1..n appended (one data
// file per region), customer 'c003' deleted merge-on-read (position
// deletes spread over the files), an equality delete of 'c005', then ids
// n+1..n+50 appended. It returns the snapshot ids.
func OrdersBig(ctx context.Context, warehouse, ns, name string, n int64, props map[string]string) ([]int64, error) {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	return ordersSeq(ctx, cat, ns, name, props, n, iceberg.EqualTo(iceberg.Reference("customer"), "c003"), true)
}

func arrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "customer", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// Append appends Orders rows from..to to the table at warehouse/<ns>/<name>
// with the given snapshot summary properties.
func Append(ctx context.Context, warehouse, ns, name string, from, to int64, props map[string]string) error {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return err
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(ctx, table.Identifier{ns, name})
	if err != nil {
		return err
	}
	_, err = appendRowsProps(ctx, tbl, from, to, props)
	return err
}

func appendRows(ctx context.Context, tbl *table.Table, from, to int64) (*table.Table, error) {
	return appendRowsProps(ctx, tbl, from, to, nil)
}

func appendRowsProps(ctx context.Context, tbl *table.Table, from, to int64, props map[string]string) (*table.Table, error) {
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, arrowSchema())
	defer b.Release()
	for id := from; id <= to; id++ {
		r := Order(id)
		b.Field(0).(*array.Int64Builder).Append(r.ID)
		b.Field(1).(*array.StringBuilder).Append(r.Customer)
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(r.Cents))
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32FromTime(r.Day))
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(r.TS.UnixMicro()))
		b.Field(5).(*array.StringBuilder).Append(r.Region)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	return tbl.Append(ctx, rdr, props)
}

func equalityDelete(ctx context.Context, tbl *table.Table, customer string) (*table.Table, error) {
	mem := memory.NewGoAllocator()
	// A partitioned table's delete rows carry the partition column too
	// (one delete file per partition); equality is on customer only.
	sc := arrow.NewSchema([]arrow.Field{{Name: "customer", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, region := range []string{"east", "west"} {
		b.Field(0).(*array.StringBuilder).Append(customer)
		b.Field(1).(*array.StringBuilder).Append(region)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var recs iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	txn := tbl.NewTransaction()
	if err := txn.CommitEqualityDeletes(ctx, []int{2}, recs, nil); err != nil {
		return nil, err
	}
	return txn.Commit(ctx)
}

// Bulk writes warehouse/<ns>/<name>, unpartitioned, with Orders' schema
// and rows 1..n appended in batches of 1 M rows (one data file each); for
// scan-speed measurements.
func Bulk(ctx context.Context, warehouse, ns, name string, n int64) error {
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
	tbl, err := cat.CreateTable(ctx, table.Identifier{ns, name}, OrdersSchema())
	if err != nil {
		return err
	}
	for from := int64(1); from <= n; from += 1 << 20 {
		if tbl, err = appendRows(ctx, tbl, from, min(n, from+1<<20-1)); err != nil {
			return err
		}
	}
	return nil
}

// AddFile commits a data file entry for path (written or not: a reader
// that refuses a format must do so from the manifest) of the given format,
// record count and size to the unpartitioned table warehouse/<ns>/<name>.
func AddFile(ctx context.Context, warehouse, ns, name, path string, format iceberg.FileFormat, records, size int64) error {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return err
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(ctx, table.Identifier{ns, name})
	if err != nil {
		return err
	}
	b, err := iceberg.NewDataFileBuilder(tbl.Spec(), iceberg.EntryContentData, path, format, nil, nil, nil, records, size)
	if err != nil {
		return err
	}
	txn := tbl.NewTransaction()
	if err := txn.AddDataFiles(ctx, []iceberg.DataFile{b.Build()}, nil); err != nil {
		return err
	}
	_, err = txn.Commit(ctx)
	return err
}

// Create creates the unpartitioned table warehouse/<ns>/<name> with sc.
func Create(ctx context.Context, warehouse, ns, name string, sc *iceberg.Schema) (location string, err error) {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return "", err
	}
	defer cat.Close()
	if ok, _ := cat.CheckNamespaceExists(ctx, table.Identifier{ns}); !ok {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			return "", err
		}
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{ns, name}, sc)
	if err != nil {
		return "", err
	}
	return tbl.Location(), nil
}

// SetProperties sets table properties of warehouse/<ns>/<name>.
func SetProperties(ctx context.Context, warehouse, ns, name string, props map[string]string) error {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return err
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(ctx, table.Identifier{ns, name})
	if err != nil {
		return err
	}
	txn := tbl.NewTransaction()
	if err := txn.SetProperties(props); err != nil {
		return err
	}
	_, err = txn.Commit(ctx)
	return err
}
