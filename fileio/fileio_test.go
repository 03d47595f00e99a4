package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func newFakeS3(t *testing.T) *S3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return NewS3(S3Config{Endpoint: srv.URL, AccessKey: "AKTEST", SecretKey: "very-secret-value", PathStyle: true, ReadAhead: 64, PartSize: 5 << 20})
}

// exercise runs the same checks against any FS with all powers.
func exercise(t *testing.T, fsys interface {
	FS
	Lister
	Creator
	Remover
}, root string) {
	ctx := context.Background()
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	p := Join(root, "db.db", "t", "data-1.parquet")
	if err := WriteFile(ctx, fsys, p, payload); err != nil {
		t.Fatalf("write: %v", err)
	}
	if err := WriteFile(ctx, fsys, Join(root, "db.db", "t", "snapshot", "LATEST"), []byte("3")); err != nil {
		t.Fatalf("write: %v", err)
	}
	f, err := fsys.Open(ctx, p)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer f.Close()
	if f.Size() != int64(len(payload)) {
		t.Fatalf("size %d want %d", f.Size(), len(payload))
	}
	for _, c := range []struct{ off, n int }{{0, 10}, {5, 30}, {100, 7}, {len(payload) - 8, 8}, {15990, 10}} {
		b := make([]byte, c.n)
		n, err := f.ReadAt(b, int64(c.off))
		if err != nil || n != c.n || !bytes.Equal(b, payload[c.off:c.off+c.n]) {
			t.Fatalf("ReadAt(%d,%d) = %d %v %q", c.off, c.n, n, err, b)
		}
	}
	b := make([]byte, 20)
	n, err := f.ReadAt(b, int64(len(payload)-5))
	if n != 5 || err != io.EOF {
		t.Fatalf("short read at end: n=%d err=%v", n, err)
	}
	ents, err := fsys.List(ctx, Join(root, "db.db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name+map[bool]string{true: "/", false: ""}[e.IsDir])
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "data-1.parquet,snapshot/" {
		t.Fatalf("list = %v", names)
	}
	if ents, err := fsys.List(ctx, Join(root, "nope")); err != nil || len(ents) != 0 {
		t.Fatalf("list missing dir = %v, %v", ents, err)
	}
	if _, err := fsys.Open(ctx, Join(root, "missing")); !IsNotExist(err) {
		t.Fatalf("open missing: %v", err)
	}
	if err := fsys.Remove(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Open(ctx, p); !IsNotExist(err) {
		t.Fatalf("open removed: %v", err)
	}
	if err := fsys.Remove(ctx, p); err != nil {
		t.Fatalf("remove twice: %v", err)
	}
}

func TestLocal(t *testing.T) {
	exercise(t, Local{}, t.TempDir())
	exercise(t, Local{}, "file://"+filepath.ToSlash(t.TempDir()))
}

func TestS3(t *testing.T) {
	s := newFakeS3(t)
	exercise(t, s, "s3://lake/wh")
}

func TestRouter(t *testing.T) {
	s := newFakeS3(t)
	r := &Router{S3: s}
	exercise(t, r, "s3a://lake/wh2")
	exercise(t, r, t.TempDir())
	if _, err := r.Open(context.Background(), "gs://x/y"); err == nil {
		t.Fatal("gs:// accepted")
	}
}

func TestS3Multipart(t *testing.T) {
	s := newFakeS3(t)
	ctx := context.Background()
	big := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, (11<<20)/7)
	if err := WriteFile(ctx, s, "s3://lake/big", big); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(ctx, s, "s3://lake/big")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("multipart round trip: %v (len %d)", err, len(got))
	}
}

func TestS3ErrorsHideSecrets(t *testing.T) {
	s := newFakeS3(t)
	_, err := s.Open(context.Background(), "s3://nobucket/x")
	if err == nil {
		t.Fatal("expected error")
	}
	for _, secret := range []string{"very-secret-value", "AKTEST"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(s.String(), secret) {
			t.Fatalf("secret leaked: %v / %v", err, s)
		}
	}
}

func TestS3ConfigFromProperties(t *testing.T) {
	for _, tc := range []struct {
		props map[string]string
		want  S3Config
		bad   bool
	}{
		{map[string]string{"s3.endpoint": "http://h:9000", "s3.access-key": "a", "s3.secret-key": "s", "s3.path.style.access": "true", "s3.region": "r"},
			S3Config{Endpoint: "http://h:9000", AccessKey: "a", SecretKey: "s", PathStyle: true, Region: "r"}, false},
		{map[string]string{"fs.s3a.endpoint": "h:9000", "fs.s3a.access.key": "a", "fs.s3a.secret.key": "s", "fs.s3a.path.style.access": "false", "fs.s3a.endpoint.region": "r"},
			S3Config{Endpoint: "http://h:9000", AccessKey: "a", SecretKey: "s", Region: "r"}, false},
		{map[string]string{"s3.access.key": "a", "s3.secret.key": "s", "s3.session.token": "t", "s3.path-style-access": "TRUE"},
			S3Config{AccessKey: "a", SecretKey: "s", SessionToken: "t", PathStyle: true}, false},
		{map[string]string{"s3.path.style.access": "maybe"}, S3Config{}, true},
	} {
		got, err := S3ConfigFromProperties(tc.props)
		if (err != nil) != tc.bad {
			t.Fatalf("%v: err %v", tc.props, err)
		}
		if !tc.bad && got != tc.want {
			t.Fatalf("%v: got %+v want %+v", tc.props, got, tc.want)
		}
	}
}

// ReadAt on one S3 file is safe from several goroutines (the read-ahead
// buffer is shared).
func TestS3ConcurrentReadAt(t *testing.T) {
	s := newFakeS3(t)
	ctx := context.Background()
	payload := make([]byte, 200_000)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	if err := WriteFile(ctx, s, "s3://lake/c", payload); err != nil {
		t.Fatal(err)
	}
	f, err := s.Open(ctx, "s3://lake/c")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 50; i++ {
				off := (g*7919 + i*104729) % (len(payload) - 100)
				b := make([]byte, 1+(i*13)%100)
				if _, err := f.ReadAt(b, int64(off)); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(b, payload[off:off+len(b)]) {
					errs <- io.ErrUnexpectedEOF
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestOSSAndOBS: oss:// and obs:// paths go through the S3 client to the
// endpoint and keys given under Doris's property names, each store to its
// own server; without an endpoint the scheme is refused.
func TestOSSAndOBS(t *testing.T) {
	server := func(bucket string) (string, *s3mem.Backend) {
		backend := s3mem.New()
		if err := backend.CreateBucket(bucket); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gofakes3.New(backend).Server())
		t.Cleanup(srv.Close)
		return srv.URL, backend
	}
	ossURL, ossBackend := server("osslake")
	obsURL, obsBackend := server("obslake")
	r, err := New(map[string]string{
		"oss.endpoint": ossURL, "oss.access_key": "OSSAK", "oss.secret_key": "oss-secret-value",
		"obs.endpoint": obsURL, "obs.access_key": "OBSAK", "obs.secret_key": "obs-secret-value",
		"use_path_style": "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, r, "oss://osslake/wh")
	exercise(t, r, "obs://obslake/wh")
	ctx := context.Background()
	if err := WriteFile(ctx, r, "oss://osslake/only-oss", []byte("o")); err != nil {
		t.Fatal(err)
	}
	// The object is on the OSS server, not on the OBS one.
	if _, err := ossBackend.HeadObject("osslake", "only-oss"); err != nil {
		t.Fatalf("OSS server lacks the object: %v", err)
	}
	if _, err := obsBackend.HeadObject("obslake", "only-oss"); err == nil {
		t.Fatal("OBS server has the OSS object")
	}
	infos, err := r.List(ctx, "oss://osslake/")
	if err != nil || len(infos) == 0 || !strings.HasPrefix(infos[0].Path, "oss://osslake/") {
		t.Fatalf("list keeps the scheme: %v %v", infos, err)
	}
	bare, err := New(map[string]string{"s3.endpoint": ossURL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Open(ctx, "oss://osslake/only-oss"); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "oss.endpoint") {
		t.Fatalf("oss without configuration: %v", err)
	}
	for _, c := range []struct{ prefix, endpoint, want string }{
		{"oss.", "oss-cn-hangzhou.aliyuncs.com", "cn-hangzhou"},
		{"oss.", "https://oss-cn-beijing-internal.aliyuncs.com", "cn-beijing"},
		{"obs.", "obs.cn-north-4.myhuaweicloud.com", "cn-north-4"},
		{"oss.", "http://127.0.0.1:9000", ""},
	} {
		if got := regionFromEndpoint(c.prefix, c.endpoint); got != c.want {
			t.Errorf("region of %s = %q, want %q", c.endpoint, got, c.want)
		}
	}
}
