package iceberg

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/catalog"
	lake "github.com/inlet-db/inlet/lake/iceberg"
)

// A REST catalog ('iceberg.catalog.type'='rest') asks the server
// (iceberg-go's REST client) for namespaces, table names and each table's
// current metadata location; the metadata, manifests and data files are
// then read from storage as for a Hadoop table (the catalog's s3.*
// settings), by the planner and the BE alike.

func parseREST(props map[string]string, wh string, storage map[string]string) (*config, error) {
	raw := strings.TrimSpace(props[PropURI])
	if raw == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Required property '%s' is missing (the REST catalog server, http://host:port)", PropURI)
	}
	u, err := url.Parse(raw)
	if strings.Contains(raw, "@") || (err == nil && u.User != nil) {
		// Checked first: the value is not printed.
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Property '%s' must not carry credentials; use '%s' or '%s'", PropURI, PropRESTCredential, PropRESTToken)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected http://host:port or https://host:port", raw, PropURI)
	}
	uri := strings.TrimRight(raw, "/")
	cfg := &config{kind: kindREST, warehouse: wh, uri: uri, storage: storage,
		cred: strings.TrimSpace(props[PropRESTCredential]), token: strings.TrimSpace(props[PropRESTToken])}
	if cfg.cred != "" && cfg.token != "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Properties '%s' and '%s' exclude each other", PropRESTCredential, PropRESTToken)
	}
	return cfg, nil
}

func (cfg *config) restOptions() []rest.Option {
	var opts []rest.Option
	if cfg.warehouse != "" {
		opts = append(opts, rest.WithWarehouseLocation(cfg.warehouse))
	}
	if cfg.cred != "" {
		opts = append(opts, rest.WithCredential(cfg.cred))
	}
	if cfg.token != "" {
		opts = append(opts, rest.WithOAuthToken(cfg.token))
	}
	return opts
}

// dialREST fetches the server's configuration (GET /v1/config), which
// the client needs before any other call.
func dialREST(ctx context.Context, name string, cfg *config) (*rest.Catalog, error) {
	rc, err := rest.NewCatalog(ctx, name, cfg.uri, cfg.restOptions()...)
	if err != nil {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Iceberg REST catalog at '%s' cannot be used: %s", cfg.uri, redact(err, cfg))
	}
	return rc, nil
}

// redact is err's text without the catalog's secrets, should a server or
// transport echo them.
func redact(err error, cfg *config) string {
	s := err.Error()
	for _, secret := range []string{cfg.cred, cfg.token} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "***")
		}
	}
	return s
}

// checkREST reaches the server once (CREATE and ALTER CATALOG).
func checkREST(ctx context.Context, cfg *config) error {
	rc, err := dialREST(ctx, "check", cfg)
	if err != nil {
		return err
	}
	rc.Close()
	return nil
}

// restConn is the catalog's client, made by the first call that needs it
// (Open does no I/O); a failed dial is tried again by the next call.
type restConn struct {
	mu sync.Mutex
	rc *rest.Catalog
}

func (r *restConn) get(ctx context.Context, name string, cfg *config) (*rest.Catalog, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rc == nil {
		rc, err := dialREST(ctx, name, cfg)
		if err != nil {
			return nil, err
		}
		r.rc = rc
	}
	return r.rc, nil
}

func (r *restConn) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rc != nil {
		r.rc.Close()
		r.rc = nil
	}
	return nil
}

func (c *Catalog) restErr(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("iceberg catalog '%s': REST catalog %s: %s: %s", c.name, c.cfg.uri, what, redact(err, c.cfg))
}

// restDatabases are the server's namespaces, a nested one as its parts
// joined by '.'.
func (c *Catalog) restDatabases(ctx context.Context) ([]string, error) {
	rc, err := c.rest.get(ctx, c.name, c.cfg)
	if err != nil {
		return nil, err
	}
	ids, err := rc.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, c.restErr("list namespaces", err)
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, strings.Join(id, "."))
	}
	slices.Sort(out)
	return out, nil
}

func (c *Catalog) restDatabase(ctx context.Context, name string) (catalog.Database, error) {
	rc, err := c.rest.get(ctx, c.name, c.cfg)
	if err != nil {
		return nil, err
	}
	ok, err := rc.CheckNamespaceExists(ctx, namespaceOf(name))
	if err != nil && !errors.Is(err, icecat.ErrNoSuchNamespace) {
		return nil, c.restErr("namespace "+name, err)
	}
	if !ok {
		return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
	}
	return &Database{cat: c, name: name}, nil
}

func namespaceOf(name string) table.Identifier { return strings.Split(name, ".") }

func (d *Database) restTables(ctx context.Context) ([]string, error) {
	rc, err := d.cat.rest.get(ctx, d.cat.name, d.cat.cfg)
	if err != nil {
		return nil, err
	}
	var out []string
	for id, err := range rc.ListTables(ctx, namespaceOf(d.name)) {
		if err != nil {
			return nil, d.cat.restErr("list tables of "+d.name, err)
		}
		if len(id) > 0 {
			out = append(out, id[len(id)-1])
		}
	}
	slices.Sort(out)
	return out, nil
}

// restTable opens the table at the metadata location the server gives as
// current now.
func (d *Database) restTable(ctx context.Context, name string) (*lake.Table, error) {
	rc, err := d.cat.rest.get(ctx, d.cat.name, d.cat.cfg)
	if err != nil {
		return nil, err
	}
	tbl, err := rc.LoadTable(ctx, append(namespaceOf(d.name), name))
	switch {
	case errors.Is(err, icecat.ErrNoSuchTable) || errors.Is(err, icecat.ErrNoSuchNamespace):
		return nil, fmt.Errorf("%w: table %s.%s", lake.ErrNotFound, d.name, name)
	case err != nil:
		return nil, d.cat.restErr("load table "+d.name+"."+name, err)
	}
	loc := tbl.MetadataLocation()
	if loc == "" {
		return nil, fmt.Errorf("%w: iceberg catalog '%s': the REST catalog gave table %s.%s no metadata location", lake.ErrUnsupported, d.cat.name, d.name, name)
	}
	return lake.Open(ctx, d.cat.fs, loc)
}
