package record_test

import (
	"encoding/binary"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

// TestHeaderOffsetsMatchUpstream encodes a batch per magic with a
// distinctive value in every field and reads each field back at the offset
// upstream's LogRecordBatchFormatTest asserts (vectors.json), so encoder and
// decoder cannot agree on a wrong layout.
func TestHeaderOffsetsMatchUpstream(t *testing.T) {
	var v struct {
		Layouts struct {
			V10 map[string]map[string]*int `json:"1.0"`
		} `json:"log_batch_header_layouts"`
	}
	loadJSON(t, "vectors.json", &v)
	layouts := v.Layouts.V10
	if len(layouts) != 3 {
		t.Fatalf("layouts %v", layouts)
	}
	for name, magic := range map[string]int8{"V0": 0, "V1": 1, "V2": 2} {
		l := layouts[name]
		p := record.BatchParams{Magic: magic, BaseOffset: 0x0102030405060708, CommitTimestamp: 0x1112131415161718,
			LeaderEpoch: 0x21222324, SchemaID: 0x3132, AppendOnly: true, WriterID: 0x4142434445464748,
			BatchSequence: 0x51525354, RecordCount: 3}
		if magic > 0 {
			p.Statistics = []byte{0xaa, 0xbb}
		}
		b, err := record.AppendLogBatch(nil, p, []byte{0xcc})
		if err != nil {
			t.Fatal(err)
		}
		le := binary.LittleEndian
		at := func(field string) int {
			o := l[field]
			if o == nil {
				t.Fatalf("%s: no offset for %s", name, field)
			}
			return *o
		}
		if got := record.HeaderSize(magic); got != at("header_size") {
			t.Errorf("%s: header size %d, upstream %d", name, got, at("header_size"))
		}
		checks := []struct {
			field string
			got   uint64
			want  uint64
		}{
			{"commit_timestamp", le.Uint64(b[at("commit_timestamp"):]), 0x1112131415161718},
			{"schema_id", uint64(le.Uint16(b[at("schema_id"):])), 0x3132},
			{"attributes", uint64(b[at("attributes")]), 1},
			{"last_offset_delta", uint64(le.Uint32(b[at("last_offset_delta"):])), 2},
			{"writer_id", le.Uint64(b[at("writer_id"):]), 0x4142434445464748},
			{"batch_sequence", uint64(le.Uint32(b[at("batch_sequence"):])), 0x51525354},
			{"record_count", uint64(le.Uint32(b[at("record_count"):])), 3},
		}
		if magic == 2 {
			checks = append(checks, struct {
				field     string
				got, want uint64
			}{"leader_epoch", uint64(le.Uint32(b[at("leader_epoch"):])), 0x21222324})
		}
		if magic > 0 {
			checks = append(checks, struct {
				field     string
				got, want uint64
			}{"statistics_length", uint64(le.Uint32(b[at("statistics_length"):])), 2},
				struct {
					field     string
					got, want uint64
				}{"statistics_data", uint64(b[at("statistics_data")]), 0xaa})
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s %s at %d: %#x want %#x", name, c.field, at(c.field), c.got, c.want)
			}
		}
		crc, _ := record.ComputeCRC(b)
		if got := le.Uint32(b[at("crc"):]); got != crc {
			t.Errorf("%s: crc field at %d holds %#x, CRC is %#x", name, at("crc"), got, crc)
		}
		lb, err := record.DecodeLogBatch(b, record.DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if lb.Header.BaseOffset != 0x0102030405060708 || len(lb.Records) != 1 {
			t.Errorf("%s: decoded %+v", name, lb.Header)
		}
	}
}

// TestImportLayering keeps the package a leaf codec: standard library,
// arrow-go, compression/flatbuffer libraries, typemap and the one
// Arrow-cell reader internal/arrowval only.
func TestImportLayering(t *testing.T) {
	allowed := []string{"github.com/apache/arrow-go/", "github.com/klauspost/compress/", "github.com/pierrec/lz4/",
		"github.com/google/flatbuffers/", "github.com/inlet-db/inlet/typemap", "github.com/inlet-db/inlet/internal/arrowval"}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(p, ".") {
				continue // standard library
			}
			ok := false
			for _, a := range allowed {
				ok = ok || strings.HasPrefix(p, a)
			}
			if !ok {
				t.Errorf("%s imports %s, outside the codec layer", f, p)
			}
		}
	}
}
