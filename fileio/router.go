package fileio

import (
	"context"
	"fmt"
	"strings"
)

// Router dispatches by URI scheme: s3://, s3a://, s3n:// go to S3 (when
// configured), plain paths and file:// go to Local. It implements FS, Lister,
// Creator and Remover.
type Router struct {
	Local Local
	S3    *S3 // nil: s3 paths fail with ErrUnsupported
}

// New builds a Router from Paimon-style properties. The S3 part is always
// configured (anonymous when no keys are given) so that s3:// warehouses
// work without extra setup.
func New(props map[string]string) (*Router, error) {
	cfg, err := S3ConfigFromProperties(props)
	if err != nil {
		return nil, err
	}
	return &Router{S3: NewS3(cfg)}, nil
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
