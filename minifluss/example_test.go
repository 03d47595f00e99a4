package minifluss_test

import (
	"context"
	"fmt"
	"os"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// Start a cluster, create a log table and a primary-key table, write rows,
// and hand the bootstrap address to a client.
func Example() {
	dir, _ := os.MkdirTemp("", "minifluss-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: dir, TabletServers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_ = c.CreateDatabase(ctx, "shop")
	_, _ = c.CreateTable(ctx, minifluss.TableSpec{Database: "shop", Name: "events", Buckets: 2,
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "kind", Type: typemap.String()}}})
	_ = c.AppendToBucket(ctx, "shop", "events", 0, [][]any{{1, "view"}, {2, "buy"}})

	_, _ = c.CreateTable(ctx, minifluss.TableSpec{Database: "shop", Name: "users", Buckets: 1, PrimaryKey: []string{"id"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.Int()}, {Name: "name", Type: typemap.String()}}})
	_ = c.Upsert(ctx, "shop", "users", [][]any{{1, "ann"}, {2, "bob"}})
	_ = c.Upsert(ctx, "shop", "users", [][]any{{1, "anna"}})
	_ = c.Delete(ctx, "shop", "users", [][]any{{2}})

	ev, _ := c.Offsets("shop", "events", "", 0)
	us, _ := c.Offsets("shop", "users", "", 0)
	fmt.Println("events bucket 0 high watermark:", ev.HighWatermark)
	fmt.Println("users changelog records (+I +I -U +U -D):", us.HighWatermark)
	fmt.Println("bootstrap address set:", c.BootstrapAddr() != "")
	// Output:
	// events bucket 0 high watermark: 2
	// users changelog records (+I +I -U +U -D): 5
	// bootstrap address set: true
}
