package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/inlet-db/inlet/internal/redact"
)

// S3Config configures an S3-compatible store. The zero value talks to AWS
// anonymously in us-east-1.
type S3Config struct {
	Endpoint     string // e.g. http://127.0.0.1:9000; empty = AWS
	Region       string // default us-east-1
	AccessKey    string
	SecretKey    string
	SessionToken string
	PathStyle    bool
	// ReadAhead is how many bytes a range GET fetches at least, so that
	// small sequential reads (Parquet pages, Avro blocks) share requests.
	// Zero means 1 MiB; negative disables read-ahead.
	ReadAhead int64
	// PartSize is the multipart upload part size for Create; zero means 8 MiB.
	PartSize int64
	// HTTPClient overrides the HTTP client (nil = SDK default).
	HTTPClient *http.Client
}

// String describes the configuration without secrets.
func (c S3Config) String() string {
	return fmt.Sprintf("s3{endpoint=%q region=%q pathStyle=%v credentials=%v}",
		c.Endpoint, c.region(), c.PathStyle, c.AccessKey != "")
}

func (c S3Config) region() string {
	if c.Region == "" {
		return "us-east-1"
	}
	return c.Region
}

// Property keys accepted by S3ConfigFromProperties, each with its aliases
// (Paimon, Hadoop s3a and Fluss spellings).
var s3Keys = [...]struct {
	field   string
	aliases []string
}{
	{"endpoint", []string{"s3.endpoint", "fs.s3a.endpoint"}},
	{"region", []string{"s3.region", "fs.s3a.endpoint.region", "fs.s3a.region"}},
	{"access", []string{"s3.access-key", "s3.access.key", "fs.s3a.access.key", "s3.access_key"}},
	{"secret", []string{"s3.secret-key", "s3.secret.key", "fs.s3a.secret.key", "s3.secret_key"}},
	{"token", []string{"s3.session-token", "s3.session.token", "fs.s3a.session.token", "s3.session_token"}},
	{"pathstyle", []string{"s3.path-style-access", "s3.path.style.access", "fs.s3a.path.style.access", "use_path_style"}},
}

// S3ConfigFromProperties builds an S3Config from Paimon-style properties
// (s3.endpoint, s3.access-key, s3.secret-key, s3.session-token, s3.region,
// s3.path.style.access and their s3a/dotted aliases). Unknown keys are ignored.
func S3ConfigFromProperties(props map[string]string) (S3Config, error) {
	var c S3Config
	for _, k := range s3Keys {
		var v string
		var found string
		for _, a := range k.aliases {
			if x, ok := props[a]; ok && x != "" {
				v, found = x, a
				break
			}
		}
		if found == "" {
			continue
		}
		switch k.field {
		case "endpoint":
			c.Endpoint = v
		case "region":
			c.Region = v
		case "access":
			c.AccessKey = v
		case "secret":
			c.SecretKey = v
		case "token":
			c.SessionToken = v
		case "pathstyle":
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return c, fmt.Errorf("fileio: property %s: %q is not a boolean", found, v)
			}
			c.PathStyle = b
		}
	}
	if c.Endpoint != "" && !strings.Contains(c.Endpoint, "://") {
		c.Endpoint = "http://" + c.Endpoint
	}
	return c, nil
}

// S3 is an FS over an S3-compatible object store. Paths are
// s3://bucket/key (s3a:// and s3n:// are accepted as aliases; oss:// and
// obs:// when the store is OSS or OBS, see Router).
type S3 struct {
	cfg    S3Config
	client *s3.Client
}

// NewS3 creates an S3 file system.
func NewS3(cfg S3Config) *S3 {
	opts := s3.Options{
		Region:       cfg.region(),
		UsePathStyle: cfg.PathStyle,
	}
	if cfg.Endpoint != "" {
		opts.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	if cfg.HTTPClient != nil {
		opts.HTTPClient = cfg.HTTPClient
	}
	if cfg.AccessKey != "" {
		creds := aws.Credentials{AccessKeyID: cfg.AccessKey, SecretAccessKey: cfg.SecretKey, SessionToken: cfg.SessionToken, Source: "inlet-static"}
		opts.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	}
	return &S3{cfg: cfg, client: s3.New(opts)}
}

// String describes the store without secrets.
func (s *S3) String() string { return s.cfg.String() }

func splitS3(p string) (bucket, key string, err error) {
	rest := ""
	for _, pre := range []string{"s3://", "s3a://", "s3n://", "oss://", "obs://"} {
		if strings.HasPrefix(p, pre) {
			rest = p[len(pre):]
			break
		}
	}
	if rest == "" {
		return "", "", fmt.Errorf("fileio: %q is not an s3:// path", redact.URIPasswords(p))
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if strings.Contains(bucket, "@") {
		// s3://AK:SECRET@bucket/…: no bucket has an @, and the SDK would
		// send (and its errors echo) the whole authority as one.
		return "", "", fmt.Errorf("fileio: %s: credentials in the URI are not supported; set the catalog's s3 access and secret key properties", redact.URIPasswords(p))
	}
	if bucket == "" {
		return "", "", fmt.Errorf("fileio: %q has no bucket", p)
	}
	return bucket, key, nil
}

// wrapErr turns SDK errors into ones that name the object and map 404 to
// fs.ErrNotExist. SDK errors carry no credentials, only request ids.
func (s *S3) wrapErr(op, bucket, key string, err error) error {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var nsb *types.NoSuchBucket
	if errors.As(err, &nsk) || errors.As(err, &nf) || errors.As(err, &nsb) {
		return fmt.Errorf("fileio: s3 %s s3://%s/%s: %w", op, bucket, key, fs.ErrNotExist)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "NotFound" || ae.ErrorCode() == "NoSuchKey") {
		return fmt.Errorf("fileio: s3 %s s3://%s/%s: %w", op, bucket, key, fs.ErrNotExist)
	}
	return fmt.Errorf("fileio: s3 %s s3://%s/%s (endpoint %q): %w", op, bucket, key, s.cfg.Endpoint, err)
}

// Open implements FS.
func (s *S3) Open(ctx context.Context, path string) (File, error) {
	bucket, key, err := splitS3(path)
	if err != nil {
		return nil, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return nil, s.wrapErr("head", bucket, key, err)
	}
	ra := s.cfg.ReadAhead
	if ra == 0 {
		ra = 1 << 20
	}
	if ra < 0 {
		ra = 0
	}
	return &s3File{s: s, bucket: bucket, key: key, size: aws.ToInt64(out.ContentLength), readAhead: ra}, nil
}

type s3File struct {
	s           *S3
	bucket, key string
	size        int64
	readAhead   int64

	mu     sync.Mutex
	buf    []byte // cached bytes starting at bufOff
	bufOff int64
}

func (f *s3File) Size() int64  { return f.size }
func (f *s3File) Close() error { f.mu.Lock(); f.buf = nil; f.mu.Unlock(); return nil }

// ReadAt serves from the read-ahead buffer when it covers the request,
// otherwise issues one range GET of max(len(p), readAhead) bytes.
func (f *s3File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("fileio: s3://%s/%s: negative offset %d", f.bucket, f.key, off)
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := int64(len(p))
	if off+want > f.size {
		want = f.size - off
	}
	f.mu.Lock()
	if f.buf != nil && off >= f.bufOff && off+want <= f.bufOff+int64(len(f.buf)) {
		n := copy(p, f.buf[off-f.bufOff:off-f.bufOff+want])
		f.mu.Unlock()
		if int64(n) < int64(len(p)) {
			return n, io.EOF
		}
		return n, nil
	}
	f.mu.Unlock()

	fetch := want
	if fetch < f.readAhead {
		fetch = f.readAhead
	}
	if off+fetch > f.size {
		fetch = f.size - off
	}
	data, err := f.get(off, fetch)
	if err != nil {
		return 0, err
	}
	n := copy(p, data)
	if fetch > want {
		f.mu.Lock()
		f.buf, f.bufOff = data, off
		f.mu.Unlock()
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *s3File) get(off, n int64) ([]byte, error) {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+n-1)
	// ReadAt has no context; requests are bounded by the HTTP client.
	out, err := f.s.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &f.bucket, Key: &f.key, Range: &rng})
	if err != nil {
		return nil, f.s.wrapErr("get", f.bucket, f.key, err)
	}
	defer out.Body.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(out.Body, buf); err != nil {
		return nil, fmt.Errorf("fileio: s3 get s3://%s/%s range %s: %w", f.bucket, f.key, rng, err)
	}
	return buf, nil
}

// List implements Lister using ListObjectsV2 with a "/" delimiter.
func (s *S3) List(ctx context.Context, dir string) ([]FileInfo, error) {
	bucket, key, err := splitS3(dir)
	if err != nil {
		return nil, err
	}
	prefix := strings.TrimRight(key, "/")
	if prefix != "" {
		prefix += "/"
	}
	scheme, _, _ := strings.Cut(dir, "://")
	base := scheme + "://" + bucket + "/"
	var out []FileInfo
	var token *string
	for {
		res, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix, Delimiter: aws.String("/"), ContinuationToken: token})
		if err != nil {
			return nil, s.wrapErr("list", bucket, prefix, err)
		}
		for _, cp := range res.CommonPrefixes {
			k := strings.TrimRight(aws.ToString(cp.Prefix), "/")
			out = append(out, FileInfo{Path: base + k, Name: k[len(prefix):], IsDir: true})
		}
		for _, o := range res.Contents {
			k := aws.ToString(o.Key)
			if k == prefix {
				continue
			}
			out = append(out, FileInfo{Path: base + k, Name: k[len(prefix):], Size: aws.ToInt64(o.Size)})
		}
		if !aws.ToBool(res.IsTruncated) || res.NextContinuationToken == nil {
			return out, nil
		}
		token = res.NextContinuationToken
	}
}

// Remove implements Remover.
func (s *S3) Remove(ctx context.Context, path string) error {
	bucket, key, err := splitS3(path)
	if err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &key}); err != nil {
		err = s.wrapErr("delete", bucket, key, err)
		if IsNotExist(err) {
			return nil
		}
		return err
	}
	return nil
}

// Create implements Creator: small objects are one PUT on Close; larger ones
// switch to a multipart upload once PartSize bytes are buffered.
func (s *S3) Create(ctx context.Context, path string) (Writer, error) {
	bucket, key, err := splitS3(path)
	if err != nil {
		return nil, err
	}
	ps := s.cfg.PartSize
	if ps <= 0 {
		ps = 8 << 20
	}
	if ps < 5<<20 {
		ps = 5 << 20 // S3 minimum for all but the last part
	}
	return &s3Writer{ctx: ctx, s: s, bucket: bucket, key: key, partSize: ps}, nil
}

type s3Writer struct {
	ctx         context.Context
	s           *S3
	bucket, key string
	partSize    int64
	buf         bytes.Buffer
	uploadID    *string
	parts       []types.CompletedPart
	done        bool
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("fileio: s3://%s/%s: write after close", w.bucket, w.key)
	}
	n, _ := w.buf.Write(p)
	for int64(w.buf.Len()) >= w.partSize {
		if err := w.uploadPart(w.buf.Next(int(w.partSize))); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (w *s3Writer) uploadPart(b []byte) error {
	if w.uploadID == nil {
		out, err := w.s.client.CreateMultipartUpload(w.ctx, &s3.CreateMultipartUploadInput{Bucket: &w.bucket, Key: &w.key})
		if err != nil {
			return w.s.wrapErr("create multipart", w.bucket, w.key, err)
		}
		w.uploadID = out.UploadId
	}
	num := int32(len(w.parts) + 1)
	out, err := w.s.client.UploadPart(w.ctx, &s3.UploadPartInput{Bucket: &w.bucket, Key: &w.key, UploadId: w.uploadID,
		PartNumber: aws.Int32(num), Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
	if err != nil {
		return w.s.wrapErr(fmt.Sprintf("upload part %d", num), w.bucket, w.key, err)
	}
	w.parts = append(w.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
	return nil
}

func (w *s3Writer) Close() error {
	if w.done {
		return fmt.Errorf("fileio: s3://%s/%s: writer already closed", w.bucket, w.key)
	}
	w.done = true
	if w.uploadID == nil {
		b := w.buf.Bytes()
		_, err := w.s.client.PutObject(w.ctx, &s3.PutObjectInput{Bucket: &w.bucket, Key: &w.key, Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
		if err != nil {
			return w.s.wrapErr("put", w.bucket, w.key, err)
		}
		return nil
	}
	if w.buf.Len() > 0 {
		if err := w.uploadPart(w.buf.Bytes()); err != nil {
			return err
		}
	}
	_, err := w.s.client.CompleteMultipartUpload(w.ctx, &s3.CompleteMultipartUploadInput{Bucket: &w.bucket, Key: &w.key, UploadId: w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts}})
	if err != nil {
		return w.s.wrapErr("complete multipart", w.bucket, w.key, err)
	}
	return nil
}

func (w *s3Writer) Abort() error {
	w.done = true
	w.buf.Reset()
	if w.uploadID == nil {
		return nil
	}
	id := w.uploadID
	w.uploadID = nil
	if _, err := w.s.client.AbortMultipartUpload(w.ctx, &s3.AbortMultipartUploadInput{Bucket: &w.bucket, Key: &w.key, UploadId: id}); err != nil {
		return w.s.wrapErr("abort multipart", w.bucket, w.key, err)
	}
	return nil
}
