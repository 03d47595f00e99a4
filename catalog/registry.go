package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Type is a catalog type that can be created by CREATE CATALOG.
type Type struct {
	// Name is the value of the 'type' property, lower case.
	Name string
	// Validate checks properties before anything is persisted; it is called
	// for CREATE CATALOG and ALTER CATALOG SET PROPERTIES with the full
	// resulting property map (including 'type').
	Validate func(props map[string]string) error
	// Check, when set, runs after Validate for CREATE CATALOG and ALTER
	// CATALOG SET PROPERTIES and may do quick I/O, so a catalog that cannot
	// work (a local warehouse that does not exist) is refused then rather
	// than at its first query. It never runs at FE start.
	Check func(ctx context.Context, props map[string]string) error
	// Open builds the catalog. It should not block on remote systems: a
	// catalog whose cluster is down still has to load at FE start, and its
	// queries fail instead.
	Open func(ctx context.Context, props map[string]string, env Env) (Catalog, error)
}

// Registry maps type names to catalog types. The process builds one and
// passes it to the catalog manager; it is read-only afterwards and safe for
// concurrent use.
type Registry struct {
	types map[string]Type
}

// NewRegistry builds a registry; duplicate or empty names are an error.
func NewRegistry(types ...Type) (*Registry, error) {
	r := &Registry{types: make(map[string]Type, len(types))}
	for _, t := range types {
		n := strings.ToLower(t.Name)
		if n == "" || t.Open == nil {
			return nil, fmt.Errorf("catalog: registry: type %q needs a name and an Open function", t.Name)
		}
		if _, dup := r.types[n]; dup {
			return nil, fmt.Errorf("catalog: registry: type %q registered twice", n)
		}
		t.Name = n
		r.types[n] = t
	}
	return r, nil
}

// Lookup returns the type named by the 'type' property of props.
func (r *Registry) Lookup(props map[string]string) (Type, error) {
	name, ok := props["type"]
	if !ok || strings.TrimSpace(name) == "" {
		return Type{}, Errorf(ErrInvalidProperty, "missing required property 'type'")
	}
	t, ok := r.types[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		known := strings.Join(r.Names(), ", ")
		if known == "" {
			known = "none in this build"
		}
		return Type{}, Errorf(ErrUnknownType, "Unknown catalog type: %s (supported: %s)", name, known)
	}
	return t, nil
}

// Names lists the registered type names in order.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.types))
	for n := range r.types {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
