package flightsql

import (
	"context"
	"crypto/tls"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/inlet-db/inlet/internal/testcert"
)

// With a certificate the Flight SQL port is TLS-only (the basic-auth
// password never crosses in clear text) and accounts created REQUIRE SSL
// log in over it; without one, such accounts are refused, as the MySQL
// port refuses them in clear text.
func TestFlightSQLTLS(t *testing.T) {
	cert, err := testcert.New()
	if err != nil {
		t.Fatal(err)
	}
	f := startFETLS(t, "", &tls.Config{Certificates: []tls.Certificate{cert.Pair}, MinVersion: tls.VersionTLS12})
	mustExec(t, f.mysqlDB("root", "", ""), "CREATE USER 'sec'@'%' IDENTIFIED BY 'sec-pw' REQUIRE SSL")

	// Clear text does not get through.
	if _, err := f.client().Client.AuthenticateBasicToken(context.Background(), "root", ""); err == nil {
		t.Error("a clear-text client logged in to the TLS port")
	}
	cl, err := flightsql.NewClient(f.flight.Addr().String(), nil, nil, grpc.WithTransportCredentials(credentials.NewTLS(cert.ClientConfig())))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), "sec", "sec-pw")
	if err != nil {
		t.Fatalf("REQUIRE SSL user over TLS: %v", err)
	}
	if _, recs, err := query(ctx, cl, "SELECT 1"); err != nil {
		t.Fatal(err)
	} else {
		release(recs)
	}

	plain := startFE(t, "")
	mustExec(t, plain.mysqlDB("root", "", ""), "CREATE USER 'sec'@'%' IDENTIFIED BY 'sec-pw' REQUIRE SSL")
	if _, err := plain.client().Client.AuthenticateBasicToken(context.Background(), "sec", "sec-pw"); err == nil {
		t.Error("a REQUIRE SSL user logged in over clear text")
	}
}
