package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Issue 27: with BEs of their own (--be), a query whose whole result is a
// scan gets Flight SQL endpoints on the BEs (Doris's "BE direct"): the
// client reads each part from its BE with the FE's signed ticket, and the
// rows equal the MySQL port's and the hand-derived demo rows. A query with
// work left on the FE (ORDER BY, zone-aware timestamps shown as wall-clock
// time) is served by the FE; a ticket altered by one byte is refused.
func TestFlightSQLBEDirect(t *testing.T) {
	t.Setenv("INLET_CLUSTER_SECRET", "direct-test-secret")
	bin := filepath.Join(t.TempDir(), "be")
	if out, err := exec.Command("go", "build", "-o", bin, "../be").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/be: %v\n%s", err, out)
	}
	_, a := startBEProcess(t, bin)
	_, b := startBEProcess(t, bin)
	fe := startDemoBEs(t, 0, []string{a, b})
	if fe.flight == "" {
		t.Fatal("no Flight SQL port printed")
	}
	// The demo's PK table after its log tail (lake rows suppressed by the
	// tail's keys on the BEs): 1001 updated, 1003 deleted, 1005 inserted.
	want := []string{"1001|ada|shipped|25.00", "1002|grace|paid|30.00", "1004|margaret|created|12.50", "1005|edsger|created|99.90"}
	const q = "SELECT order_id, customer, status, total FROM fluss.shop.orders"

	db := openDB(t, fe.query, "root", "")
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	var viaMySQL []string
	for rs.Next() {
		var id, cust, st, tot string
		if err := rs.Scan(&id, &cust, &st, &tot); err != nil {
			t.Fatal(err)
		}
		viaMySQL = append(viaMySQL, strings.Join([]string{id, cust, st, tot}, "|"))
	}
	rs.Close()
	slices.Sort(viaMySQL)
	if fmt.Sprint(viaMySQL) != fmt.Sprint(want) {
		t.Errorf("MySQL: %v, want %v", viaMySQL, want)
	}

	cl, err := flightsql.NewClient(fe.flight, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), "root", "")
	if err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var viaBEs []string
	for _, ep := range info.Endpoint {
		if len(ep.Location) != 1 {
			t.Fatalf("endpoint without a BE location: %v", ep)
		}
		addr, ok := strings.CutPrefix(ep.Location[0].Uri, "grpc+tcp://")
		if !ok || (addr != a && addr != b) {
			t.Fatalf("endpoint location %q is not one of the BEs %s, %s", ep.Location[0].Uri, a, b)
		}
		// A plain Flight client of the BE, with no cluster secret: the
		// ticket is the credential.
		be, err := flight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer be.Close()
		bad := slices.Clone(ep.Ticket.Ticket)
		bad[len(bad)-1] ^= 1
		if s, err := be.DoGet(context.Background(), &flight.Ticket{Ticket: bad}); err == nil {
			if _, err = s.Recv(); status.Code(err) != codes.Unauthenticated {
				t.Errorf("altered ticket: %v, want Unauthenticated", err)
			}
		}
		s, err := be.DoGet(context.Background(), ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := flight.NewRecordReader(s)
		if err != nil {
			t.Fatalf("BE %s: %v", addr, err)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				var row []string
				for c := 0; c < int(rec.NumCols()); c++ {
					row = append(row, cellText(rec.Column(c), i))
				}
				viaBEs = append(viaBEs, strings.Join(row, "|"))
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	slices.Sort(viaBEs)
	if fmt.Sprint(viaBEs) != fmt.Sprint(want) {
		t.Errorf("BE direct: %v, want %v", viaBEs, want)
	}

	// Work left on the FE: the FE serves the result.
	for _, fq := range []string{q + " ORDER BY order_id", "SELECT order_id, updated_at FROM fluss.shop.orders"} {
		info, err := cl.Execute(ctx, fq)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Endpoint) != 1 || len(info.Endpoint[0].Location) != 0 {
			t.Errorf("%s: endpoints %v, want one on the FE", fq, info.Endpoint)
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rdr.Next() {
			n += int(rdr.RecordBatch().NumRows())
		}
		rdr.Release()
		if n != 4 {
			t.Errorf("%s: %d rows from the FE, want 4", fq, n)
		}
	}
}
