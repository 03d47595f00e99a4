package mysqlwire

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// echoSession answers "cols N" with one row of N BIGINT columns, NULL where
// the column index is a multiple of 3 (value = index otherwise), and
// records the typed arguments of each prepared execution.
type echoSession struct {
	mu   sync.Mutex
	args [][]any
}

func (s *echoSession) Close() {}

func (s *echoSession) Query(ctx context.Context, q string, w ResultWriter) error {
	n, err := strconv.Atoi(strings.TrimPrefix(q, "cols "))
	if err != nil {
		return Errorf(CodeSyntax, "want cols N")
	}
	cols := make([]Column, n)
	row := make([][]byte, n)
	for i := range cols {
		cols[i] = Column{Name: "c" + strconv.Itoa(i), Type: TypeBigInt}
		if i%3 != 0 {
			row[i] = []byte(strconv.Itoa(i))
		}
	}
	if err := w.Columns(cols); err != nil {
		return err
	}
	return w.Row(row)
}

func (s *echoSession) Prepare(ctx context.Context, q string) (int, error) {
	return strings.Count(q, "?"), nil
}

func (s *echoSession) Execute(ctx context.Context, q string, args []any, w ResultWriter) error {
	s.mu.Lock()
	s.args = append(s.args, args)
	s.mu.Unlock()
	if len(args) == 0 {
		return s.Query(ctx, q, w)
	}
	return w.OK(OKResult{})
}

func startEcho(t *testing.T) (*Server, *echoSession) {
	t.Helper()
	sess := &echoSession{}
	s, err := Listen(Config{Addr: "127.0.0.1:0", NewSession: func(ConnInfo) (Session, error) { return sess, nil }})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() { s.Close() })
	return s, sess
}

const serverStatusCursorExists = 0x40

// prepare sends COM_STMT_PREPARE and reads the answer, returning the
// statement id.
func (rc *rawClient) prepare(q string) uint32 {
	rc.t.Helper()
	rc.write(0, append([]byte{0x16}, q...))
	_, p := rc.read()
	if len(p) < 12 || p[0] != 0 {
		rc.t.Fatalf("prepare %q: %q", q, p)
	}
	id := binary.LittleEndian.Uint32(p[1:5])
	params := binary.LittleEndian.Uint16(p[7:9])
	cols := binary.LittleEndian.Uint16(p[5:7])
	for i := 0; i < int(params)+int(cols); i++ {
		rc.read()
	}
	if params > 0 {
		rc.read() // EOF after the parameter definitions
	}
	if cols > 0 {
		rc.read()
	}
	return id
}

// TestBinaryRowNullBitmap decodes binary result rows by hand, independent
// of any driver: a row of N columns starts 0x00 and a NULL bitmap of
// (N+7+2)/8 bytes whose bit i+2 marks column i; then the non-NULL BIGINTs
// as 8 little-endian bytes each.
func TestBinaryRowNullBitmap(t *testing.T) {
	s, _ := startEcho(t)
	rc := dialRaw(t, s.Addr().String(), rawClientBaseCap)
	for _, n := range []int{1, 6, 7, 8, 14, 15, 16, 22, 23, 70} {
		id := rc.prepare(fmt.Sprintf("cols %d", n))
		// From 16 columns on the client asks for a read-only cursor; the
		// server may decline one (MySQL does for some statements) by
		// sending the rows at once without SERVER_STATUS_CURSOR_EXISTS,
		// which clients handle, so the rows must be the same.
		cursor := byte(0)
		if n >= 16 {
			cursor = 1
		}
		rc.write(0, append(append([]byte{0x17}, le32(id)...), cursor, 1, 0, 0, 0))
		_, p := rc.read()
		if len(p) != 1 || int(p[0]) != n {
			t.Fatalf("n=%d: column count packet %x", n, p)
		}
		for i := 0; i < n; i++ {
			rc.read()
		}
		if _, p := rc.read(); p[0] != 0xfe || len(p) < 5 || binary.LittleEndian.Uint16(p[3:5])&serverStatusCursorExists != 0 {
			t.Fatalf("n=%d: want EOF without a cursor after the columns, got %x", n, p)
		}
		_, row := rc.read()
		bitmap := (n + 7 + 2) / 8
		want := 1 + bitmap
		for i := 0; i < n; i++ {
			if i%3 != 0 {
				want += 8
			}
		}
		if len(row) != want || row[0] != 0 {
			t.Fatalf("n=%d: binary row of %d bytes (%x), want %d", n, len(row), row, want)
		}
		pos := 1 + bitmap
		for i := 0; i < n; i++ {
			null := row[1+(i+2)/8]&(1<<((i+2)%8)) != 0
			if null != (i%3 == 0) {
				t.Fatalf("n=%d: column %d NULL bit %v", n, i, null)
			}
			if !null {
				if v := binary.LittleEndian.Uint64(row[pos:]); v != uint64(i) {
					t.Fatalf("n=%d: column %d = %d", n, i, v)
				}
				pos += 8
			}
		}
		if _, p := rc.read(); p[0] != 0xfe {
			t.Fatalf("n=%d: want EOF after the row, got %x", n, p)
		}
	}
}

// TestExecuteTypedArguments sends each MySQL parameter type the way
// Connector/J and mysql2 do (binary DATE/DATETIME/TIME, NEWDECIMAL,
// unsigned LONGLONG with the 0x80 flag, NULL) and checks what the session
// receives.
func TestExecuteTypedArguments(t *testing.T) {
	s, sess := startEcho(t)
	rc := dialRaw(t, s.Addr().String(), rawClientBaseCap)
	const n = 10
	id := rc.prepare("x" + strings.Repeat(" ?", n))
	le16 := func(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	lenenc := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	p := append([]byte{0x17}, le32(id)...)
	p = append(p, 0)
	p = append(p, le32(1)...)
	p = append(p, 0, 1<<(9-8)) // NULL bitmap: parameter 9 (index 9) is NULL
	p = append(p, 1)           // types follow
	p = append(p,
		12, 0, // DATETIME
		12, 0, // DATETIME without a fraction
		10, 0, // DATE
		11, 0, // TIME
		246, 0, // NEWDECIMAL
		8, 0x80, // LONGLONG UNSIGNED
		8, 0, // LONGLONG
		1, 0x80, // TINY UNSIGNED
		253, 0, // VAR_STRING
		6, 0) // NULL
	p = append(p, 11)
	p = append(p, le16(1969)...)
	p = append(p, 12, 31, 23, 59, 59)
	p = append(p, le32(500000)...)
	p = append(p, 7)
	p = append(p, le16(2024)...)
	p = append(p, 1, 5, 9, 0, 7)
	p = append(p, 4)
	p = append(p, le16(800)...)
	p = append(p, 2, 9)
	p = append(p, 12, 1) // negative TIME
	p = append(p, le32(1)...)
	p = append(p, 2, 3, 4)
	p = append(p, le32(120000)...)
	p = append(p, lenenc("-12.50")...)
	p = append(p, le64(1<<64-1)...)
	p = append(p, le64(1<<64-1)...)
	p = append(p, 200)
	p = append(p, lenenc("日本")...)
	rc.write(0, p)
	if _, r := rc.read(); len(r) == 0 || r[0] != 0 {
		t.Fatalf("execute: %q", r)
	}
	sess.mu.Lock()
	got := typed(sess.args[len(sess.args)-1])
	sess.mu.Unlock()
	want := typed([]any{DateTime("1969-12-31 23:59:59.5"), DateTime("2024-01-05 09:00:07"), Date("0800-02-09"),
		Time("-26:03:04.12"), Decimal("-12.50"), uint64(1<<64 - 1), int64(-1), uint64(200), "日本", nil})
	if got != want {
		t.Errorf("arguments:\n got %s\nwant %s", got, want)
	}
}

// typed prints values with their Go types: %#v prints a named string type
// as a bare quoted string.
func typed(vs []any) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%T(%v) ", v, v)
	}
	return b.String()
}
