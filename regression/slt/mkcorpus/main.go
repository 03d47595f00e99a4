// Command mkcorpus copies the committed subset of the sqllogictest corpus
// (public domain, github.com/gregrahn/sqllogictest, directory test/) into
// regression/slt/testdata/corpus. A file is copied whole, or cut after its
// first N query records ("path:N"); a cut keeps the lines before it (minus
// any \r, which the harness drops too), so line numbers (and skip-list
// entries) match the original.
//
//	go run ./regression/slt/mkcorpus /path/to/sqllogictest/test regression/slt/testdata/corpus $(cat regression/slt/testdata/corpus/FILES)
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: mkcorpus SRC-test-DIR DST-DIR path[:queries] ...")
		os.Exit(2)
	}
	src, dst := os.Args[1], os.Args[2]
	for _, arg := range os.Args[3:] {
		if err := copyFile(src, dst, arg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func copyFile(src, dst, arg string) error {
	rel, limit := arg, -1
	if i := strings.LastIndexByte(arg, ':'); i >= 0 {
		n, err := strconv.Atoi(arg[i+1:])
		if err != nil || n <= 0 {
			return fmt.Errorf("%s: want path or path:queries", arg)
		}
		rel, limit = arg[:i], n
	}
	out := filepath.Join(dst, rel)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if limit < 0 {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	}
	in, err := os.Open(filepath.Join(src, rel))
	if err != nil {
		return err
	}
	defer in.Close()
	var b strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	queries, inQuery := 0, false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "query ") {
			inQuery = true
		}
		if strings.TrimSpace(line) == "" && inQuery {
			inQuery = false
			queries++
			if limit > 0 && queries >= limit {
				break
			}
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", rel, err)
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}
