package fileio

import (
	"context"
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/internal/redact"
)

// Router dispatches by URI scheme: s3://, s3a://, s3n:// go to S3 (when
// configured), oss:// to OSS and obs:// to OBS (Alibaba Cloud and Huawei
// Cloud object storage, both spoken to through their S3-compatible APIs),
// plain paths and file:// go to Local. It implements FS, Lister, Creator and
// Remover.
type Router struct {
	Local Local
	S3    *S3 // nil: s3 paths fail with ErrUnsupported
	OSS   *S3 // nil: oss paths fail with ErrUnsupported
	OBS   *S3 // nil: obs paths fail with ErrUnsupported
}

// New builds a Router from Paimon-style properties. The S3 part is always
// configured (anonymous when no keys are given) so that s3:// warehouses
// work without extra setup; OSS and OBS are configured when their endpoint
// is given (Doris's property names: oss.endpoint, oss.access_key,
// oss.secret_key, oss.session_token, oss.region and the same under obs.;
// use_path_style applies to all three).
func New(props map[string]string) (*Router, error) {
	cfg, err := S3ConfigFromProperties(props)
	if err != nil {
		return nil, err
	}
	r := &Router{S3: NewS3(cfg)}
	for _, store := range []struct {
		prefix string
		dst    **S3
	}{{"oss.", &r.OSS}, {"obs.", &r.OBS}} {
		c, ok, err := storeConfig(props, store.prefix, cfg.PathStyle)
		if err != nil {
			return nil, err
		}
		if ok {
			*store.dst = NewS3(c)
		}
	}
	return r, nil
}

// storeConfig reads the S3-compatible settings of OSS or OBS (prefix "oss."
// or "obs."); ok is false without an endpoint.
func storeConfig(props map[string]string, prefix string, pathStyle bool) (S3Config, bool, error) {
	get := func(k string) string { return strings.TrimSpace(props[prefix+k]) }
	c := S3Config{Endpoint: get("endpoint"), Region: get("region"), AccessKey: get("access_key"),
		SecretKey: get("secret_key"), SessionToken: get("session_token"), PathStyle: pathStyle}
	if c.Endpoint == "" {
		return c, false, nil
	}
	if !strings.Contains(c.Endpoint, "://") {
		c.Endpoint = "https://" + c.Endpoint
	}
	if c.Region == "" {
		c.Region = regionFromEndpoint(prefix, c.Endpoint)
	}
	return c, true, nil
}

// regionFromEndpoint reads the region out of the public endpoint names:
// oss-cn-hangzhou[-internal].aliyuncs.com and obs.cn-north-4.myhuaweicloud.com.
// Other endpoints (a test server, a private gateway) keep the default.
func regionFromEndpoint(prefix, endpoint string) string {
	host := endpoint
	if _, h, ok := strings.Cut(host, "://"); ok {
		host = h
	}
	host, _, _ = strings.Cut(host, "/")
	host, _, _ = strings.Cut(host, ":")
	switch prefix {
	case "oss.":
		if first, rest, ok := strings.Cut(host, "."); ok && strings.HasPrefix(first, "oss-") && strings.HasSuffix(rest, "aliyuncs.com") {
			return strings.TrimSuffix(strings.TrimPrefix(first, "oss-"), "-internal")
		}
	case "obs.":
		parts := strings.Split(host, ".")
		if len(parts) >= 3 && parts[0] == "obs" && strings.HasSuffix(host, "myhuaweicloud.com") {
			return parts[1]
		}
	}
	return ""
}

// Scheme returns the lower-cased scheme of p ("" for a plain path).
func Scheme(p string) string {
	i := strings.Index(p, "://")
	if i <= 0 {
		if strings.HasPrefix(p, "file:") {
			return "file"
		}
		return ""
	}
	return strings.ToLower(p[:i])
}

func (r *Router) pick(p string) (any, error) {
	switch Scheme(p) {
	case "", "file":
		return r.Local, nil
	case "s3", "s3a", "s3n":
		if r.S3 == nil {
			return nil, fmt.Errorf("%w: %s: no S3 configuration", ErrUnsupported, p)
		}
		return r.S3, nil
	case "oss":
		if r.OSS == nil {
			return nil, fmt.Errorf("%w: %s: no OSS configuration (set oss.endpoint, oss.access_key and oss.secret_key)", ErrUnsupported, redact.URIPasswords(p))
		}
		return r.OSS, nil
	case "obs":
		if r.OBS == nil {
			return nil, fmt.Errorf("%w: %s: no OBS configuration (set obs.endpoint, obs.access_key and obs.secret_key)", ErrUnsupported, redact.URIPasswords(p))
		}
		return r.OBS, nil
	}
	return nil, fmt.Errorf("%w: scheme of %q", ErrUnsupported, p)
}

// Open implements FS.
func (r *Router) Open(ctx context.Context, p string) (File, error) {
	f, err := r.pick(p)
	if err != nil {
		return nil, err
	}
	return f.(FS).Open(ctx, p)
}

// List implements Lister.
func (r *Router) List(ctx context.Context, p string) ([]FileInfo, error) {
	f, err := r.pick(p)
	if err != nil {
		return nil, err
	}
	return f.(Lister).List(ctx, p)
}

// Create implements Creator.
func (r *Router) Create(ctx context.Context, p string) (Writer, error) {
	f, err := r.pick(p)
	if err != nil {
		return nil, err
	}
	return f.(Creator).Create(ctx, p)
}

// Remove implements Remover.
func (r *Router) Remove(ctx context.Context, p string) error {
	f, err := r.pick(p)
	if err != nil {
		return err
	}
	return f.(Remover).Remove(ctx, p)
}
