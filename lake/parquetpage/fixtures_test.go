package parquetpage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// TestFixturesMatchPqarrow reads every column chunk of every Parquet file
// among the Java-written Paimon fixtures (parquet-mr 1.13 and 1.15, every
// Paimon type, NULLs, INT96 before 1970, several row groups) through this
// package and through pqarrow, at batch sizes that do and do not divide
// the pages.
func TestFixturesMatchPqarrow(t *testing.T) {
	dir := fixtures.Path(t, "paimon")
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, p := range files {
		for _, batch := range []int{1, 3, 1024} {
			c, _ := diffFile(t, p, batch)
			compared += c
		}
	}
	if len(files) < 40 || compared < 300 {
		t.Fatalf("%d files, %d column chunks compared: the fixtures are not all there", len(files), compared)
	}
	t.Logf("%d files, %d column chunk reads compared", len(files), compared)
}

// openParquet reads the Parquet file at path into memory and opens it
// with arrow-go's reader, closed when the test ends; raw is what the
// readers under test read the same file from.
func openParquet(tb testing.TB, path string) ([]byte, *file.Reader) {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pf.Close() })
	return raw, pf
}
