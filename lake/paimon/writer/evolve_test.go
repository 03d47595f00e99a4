package writer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

func TestEvolveSchema(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir()
	s := &paimon.TableSchema{Fields: []paimon.DataField{{ID: 0, Name: "k", Type: i32(false)}, {ID: 1, Name: "v", Type: str(true)}},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	added := append(append([]paimon.DataField(nil), s.Fields...), paimon.DataField{ID: 2, Name: "n", Type: i64(true), Description: "new"})
	got, err := writer.EvolveSchema(ctx, fileio.Local{}, path, added, time.Unix(5, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1 || got.HighestFieldID != 2 || got.TimeMillis != 5000 || len(got.PrimaryKeys) != 1 || got.Options["bucket"] != "1" {
		t.Fatalf("schema %+v", got)
	}
	// The reader sees it as the latest schema; schema-0 is untouched.
	pt, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := pt.LatestSchema(ctx)
	if err != nil || latest.ID != 1 || len(latest.Fields) != 3 || latest.Fields[2].Name != "n" || latest.Fields[2].Description != "new" {
		t.Fatalf("latest %+v %v", latest, err)
	}
	if s0, err := pt.Schema(ctx, 0); err != nil || len(s0.Fields) != 2 {
		t.Fatalf("schema-0 %+v %v", s0, err)
	}
	for _, tc := range []struct {
		name   string
		fields []paimon.DataField
	}{
		{"new field reuses an id", append(append([]paimon.DataField(nil), added...), paimon.DataField{ID: 1, Name: "w", Type: i64(true)})},
		{"id renamed", []paimon.DataField{{ID: 0, Name: "k", Type: i32(false)}, {ID: 1, Name: "renamed", Type: str(true)}, {ID: 2, Name: "n", Type: i64(true)}}},
	} {
		if _, err := writer.EvolveSchema(ctx, fileio.Local{}, path, tc.fields, time.Unix(6, 0)); !errors.Is(err, writer.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
}
