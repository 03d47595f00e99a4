package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inlet-db/inlet/catalog"
)

// InternalName and InternalID identify the internal catalog, as in Doris.
const (
	InternalName    = "internal"
	InternalID      = 0
	internalComment = "Doris internal catalog"
	metaFile        = "catalogs.json"
	metaVersion     = 1
)

// Info describes a catalog for SHOW CATALOGS and SHOW CREATE CATALOG.
// Properties are masked.
type Info struct {
	ID         int64
	Name       string
	Type       string
	Comment    string
	Properties map[string]string
	Created    time.Time
	Updated    time.Time
}

type entry struct {
	ID      int64             `json:"id"`
	Name    string            `json:"name"`
	Comment string            `json:"comment,omitempty"`
	Props   map[string]string `json:"properties"`
	Created int64             `json:"created_ms"`
	Updated int64             `json:"updated_ms"`

	cat catalog.Catalog
}

type meta struct {
	Version  int      `json:"version"`
	NextID   int64    `json:"next_id"`
	Catalogs []*entry `json:"catalogs"`
}

// Options configure a Manager.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// Env is handed to catalog types when they open a catalog; Name and
	// DataDir are filled per catalog (DataDir = <meta dir>/catalogs/<id>).
	Env catalog.Env
}

// Manager owns the catalogs of one FE.
type Manager struct {
	dir      string
	reg      *catalog.Registry
	internal catalog.Catalog
	log      *slog.Logger
	now      func() time.Time
	env      catalog.Env
	started  time.Time

	mu     sync.Mutex
	nextID int64
	byName map[string]*entry
}

// Open loads the catalog definitions from metaDir.
func Open(metaDir string, internal catalog.Catalog, reg *catalog.Registry, opts Options) (*Manager, error) {
	if internal == nil || reg == nil {
		return nil, errors.New("catalog manager: the internal catalog and a type registry are required")
	}
	if err := os.MkdirAll(metaDir, 0o755); err != nil {
		return nil, fmt.Errorf("catalog manager: %w", err)
	}
	m := &Manager{dir: metaDir, reg: reg, internal: internal, log: opts.Logger, now: opts.Now, env: opts.Env, byName: map[string]*entry{}, nextID: 1}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.started = m.now()
	p := filepath.Join(metaDir, metaFile)
	b, err := os.ReadFile(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("catalog manager: read %s: %w", p, err)
	}
	md, err := parseMeta(p, b)
	if err != nil {
		return nil, err
	}
	m.nextID = md.NextID
	for _, e := range md.Catalogs {
		m.byName[e.Name] = e
	}
	return m, nil
}

// parseMeta decodes and checks catalogs.json: pure, so it can be fuzzed.
func parseMeta(path string, b []byte) (*meta, error) {
	if len(b) > 64<<20 {
		return nil, fmt.Errorf("catalog manager: %s: %d bytes is too large", path, len(b))
	}
	var md meta
	if err := json.Unmarshal(b, &md); err != nil {
		return nil, fmt.Errorf("catalog manager: %s is damaged: %v", path, err)
	}
	if md.Version != metaVersion {
		return nil, fmt.Errorf("catalog manager: %s has version %d, this build reads %d", path, md.Version, metaVersion)
	}
	names, ids := map[string]bool{}, map[int64]bool{}
	for _, e := range md.Catalogs {
		if e == nil || checkCatalogName(e.Name) != nil || e.Name == InternalName || names[e.Name] {
			return nil, fmt.Errorf("catalog manager: %s: bad or duplicate catalog entry", path)
		}
		if e.ID <= InternalID || e.ID >= md.NextID || ids[e.ID] {
			return nil, fmt.Errorf("catalog manager: %s: catalog %s has bad id %d", path, e.Name, e.ID)
		}
		names[e.Name], ids[e.ID] = true, true
		if e.Props == nil {
			e.Props = map[string]string{}
		}
	}
	return &md, nil
}

// Close closes every open external catalog.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, e := range m.byName {
		if e.cat != nil {
			errs = append(errs, e.cat.Close())
			e.cat = nil
		}
	}
	return errors.Join(errs...)
}

func (m *Manager) save() error {
	md := meta{Version: metaVersion, NextID: m.nextID, Catalogs: make([]*entry, 0, len(m.byName))}
	for _, e := range m.byName {
		md.Catalogs = append(md.Catalogs, e)
	}
	slices.SortFunc(md.Catalogs, func(a, b *entry) int { return int(a.ID - b.ID) })
	b, err := json.MarshalIndent(md, "", " ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(m.dir, metaFile+".tmp*")
	if err != nil {
		return fmt.Errorf("catalog manager: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("catalog manager: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(m.dir, metaFile)); err != nil {
		return fmt.Errorf("catalog manager: %w", err)
	}
	d, err := os.Open(m.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// unknown is the Doris text for a missing catalog.
func unknown(name string) error {
	return catalog.Errorf(catalog.ErrNotFound, "Unknown catalog '%s'", name)
}

// Get returns the catalog named name, opening an external one on first use.
func (m *Manager) Get(ctx context.Context, name string) (catalog.Catalog, error) {
	if name == InternalName {
		return m.internal, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return nil, unknown(name)
	}
	if e.cat != nil {
		return e.cat, nil
	}
	t, err := m.reg.Lookup(e.Props)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", name, err)
	}
	env := m.env
	env.Name = name
	env.DataDir = filepath.Join(m.dir, "catalogs", fmt.Sprint(e.ID))
	c, err := t.Open(ctx, maps.Clone(e.Props), env)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", name, err)
	}
	e.cat = c
	return c, nil
}

// Exists reports whether a catalog exists.
func (m *Manager) Exists(name string) bool {
	if name == InternalName {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byName[name] != nil
}

func (m *Manager) info(e *entry) Info {
	return Info{ID: e.ID, Name: e.Name, Type: strings.ToLower(e.Props["type"]), Comment: e.Comment,
		Properties: catalog.MaskProperties(e.Props), Created: time.UnixMilli(e.Created), Updated: time.UnixMilli(e.Updated)}
}

func (m *Manager) internalInfo() Info {
	return Info{ID: InternalID, Name: InternalName, Type: InternalName, Comment: internalComment,
		Properties: map[string]string{}, Created: m.started, Updated: m.started}
}

// List returns all catalogs ordered by id, the internal one first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Info{m.internalInfo()}
	for _, e := range m.byName {
		out = append(out, m.info(e))
	}
	slices.SortFunc(out, func(a, b Info) int { return int(a.ID - b.ID) })
	return out
}

// Describe returns one catalog's info.
func (m *Manager) Describe(name string) (Info, error) {
	if name == InternalName {
		return m.internalInfo(), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return Info{}, unknown(name)
	}
	return m.info(e), nil
}

func (m *Manager) validate(props map[string]string) error {
	t, err := m.reg.Lookup(props)
	if err != nil {
		return err
	}
	if t.Validate != nil {
		if err := t.Validate(props); err != nil {
			return err
		}
	}
	if t.Check != nil {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		return t.Check(ctx, props)
	}
	return nil
}

// checkTimeout bounds a catalog type's Check.
const checkTimeout = 10 * time.Second

func checkCatalogName(name string) error {
	if name == "" || len(name) > 64 || strings.ContainsAny(name, "./\\`\x00 ") {
		return catalog.Errorf(catalog.ErrInvalidProperty, "invalid catalog name '%s'", name)
	}
	return nil
}

// Create adds a catalog. With ifNotExists an existing name is not an error.
func (m *Manager) Create(name, comment string, props map[string]string, ifNotExists bool) error {
	if err := checkCatalogName(name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if name == InternalName || m.byName[name] != nil {
		if ifNotExists {
			return nil
		}
		return catalog.Errorf(catalog.ErrExists, "Catalog '%s' already exists", name)
	}
	props = maps.Clone(props)
	if props == nil {
		props = map[string]string{}
	}
	if t, ok := props["type"]; ok {
		props["type"] = strings.ToLower(strings.TrimSpace(t))
	}
	if err := m.validate(props); err != nil {
		return err
	}
	now := m.now().UnixMilli()
	e := &entry{ID: m.nextID, Name: name, Comment: comment, Props: props, Created: now, Updated: now}
	m.byName[name] = e
	m.nextID++
	if err := m.save(); err != nil {
		delete(m.byName, name)
		m.nextID--
		return err
	}
	m.log.Info("catalog created", "catalog", name, "type", props["type"])
	return nil
}

// Drop removes a catalog.
func (m *Manager) Drop(name string, ifExists bool) error {
	if name == InternalName {
		return catalog.Errorf(catalog.ErrUnsupported, "Cannot drop the internal catalog")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		if ifExists {
			return nil
		}
		return unknown(name)
	}
	delete(m.byName, name)
	if err := m.save(); err != nil {
		m.byName[name] = e
		return err
	}
	if e.cat != nil {
		e.cat.Close()
	}
	os.RemoveAll(filepath.Join(m.dir, "catalogs", fmt.Sprint(e.ID)))
	m.log.Info("catalog dropped", "catalog", name)
	return nil
}

// SetProperties merges props into a catalog's properties (set only; Doris
// never removes a property this way). 'type' cannot change.
func (m *Manager) SetProperties(name string, props map[string]string) error {
	if name == InternalName {
		return catalog.Errorf(catalog.ErrUnsupported, "Cannot alter the internal catalog")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return unknown(name)
	}
	next := maps.Clone(e.Props)
	for k, v := range props {
		if k == "type" && !strings.EqualFold(strings.TrimSpace(v), e.Props["type"]) {
			return catalog.Errorf(catalog.ErrInvalidProperty, "Can not modify property 'type' of catalog '%s'", name)
		}
		next[k] = v
	}
	if err := m.validate(next); err != nil {
		return err
	}
	old, oldUpdated := e.Props, e.Updated
	e.Props, e.Updated = next, m.now().UnixMilli()
	if err := m.save(); err != nil {
		e.Props, e.Updated = old, oldUpdated
		return err
	}
	m.closeInstance(e)
	m.log.Info("catalog properties changed", "catalog", name, "keys", catalog.SortedKeys(props))
	return nil
}

// Rename renames a catalog.
func (m *Manager) Rename(name, newName string) error {
	if name == InternalName || newName == InternalName {
		return catalog.Errorf(catalog.ErrUnsupported, "Cannot rename the internal catalog")
	}
	if err := checkCatalogName(newName); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return unknown(name)
	}
	if m.byName[newName] != nil {
		return catalog.Errorf(catalog.ErrExists, "Catalog '%s' already exists", newName)
	}
	delete(m.byName, name)
	e.Name, e.Updated = newName, m.now().UnixMilli()
	m.byName[newName] = e
	if err := m.save(); err != nil {
		delete(m.byName, newName)
		e.Name = name
		m.byName[name] = e
		return err
	}
	// The instance was opened under the old name (it may print it); reopen.
	m.closeInstance(e)
	return nil
}

// ModifyComment sets a catalog's comment.
func (m *Manager) ModifyComment(name, comment string) error {
	if name == InternalName {
		return catalog.Errorf(catalog.ErrUnsupported, "Cannot alter the internal catalog")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return unknown(name)
	}
	old, oldUpdated := e.Comment, e.Updated
	e.Comment, e.Updated = comment, m.now().UnixMilli()
	if err := m.save(); err != nil {
		e.Comment, e.Updated = old, oldUpdated
		return err
	}
	return nil
}

// Refresh drops a catalog's cached metadata: through its Refresher if it has
// one, else by closing the instance so the next use reopens it.
func (m *Manager) Refresh(ctx context.Context, name string) error {
	if name == InternalName {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byName[name]
	if e == nil {
		return unknown(name)
	}
	if e.cat == nil {
		return nil
	}
	if r, ok := e.cat.(catalog.Refresher); ok {
		return r.Refresh(ctx)
	}
	m.closeInstance(e)
	return nil
}

func (m *Manager) closeInstance(e *entry) {
	if e.cat != nil {
		if err := e.cat.Close(); err != nil {
			m.log.Warn("closing catalog", "catalog", e.Name, "err", err)
		}
		e.cat = nil
	}
}
