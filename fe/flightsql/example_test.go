package flightsql_test

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The README's client: log in as a SQL user, run a query, read its Arrow
// batches. (Compiled, not run: it needs an FE on 8070.)
func Example() {
	cl, _ := flightsql.NewClient("127.0.0.1:8070", nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	ctx, _ := cl.Client.AuthenticateBasicToken(context.Background(), "root", "")
	info, _ := cl.Execute(ctx, "SELECT sku, title, price FROM demo.products ORDER BY sku")
	rdr, _ := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	defer rdr.Release()
	for rdr.Next() {
		fmt.Println(rdr.RecordBatch())
	}
}
