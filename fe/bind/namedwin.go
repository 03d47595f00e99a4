package bind

import (
	"strings"

	"github.com/inlet-db/inlet/fe/sql"
)

// resolveWindows replaces every window specification of the block that
// refers to a named window (OVER w, OVER (w ORDER BY ...)) by the
// specification it stands for, by MySQL's rules: the reference may add an
// ORDER BY when the named window has none, and a frame, but no PARTITION
// BY; a named window with a frame may only be used as it is. Windows of
// subqueries are theirs to resolve.
func resolveWindows(n *sql.Select) error {
	defs := map[string]*sql.NamedWindow{}
	for _, w := range n.Windows {
		k := strings.ToLower(w.Name)
		if _, dup := defs[k]; dup {
			return errorf(ErrAnalysis, "Window '%s' is defined twice", w.Name)
		}
		defs[k] = w
	}
	var resolve func(spec *sql.WindowSpec, depth int) (*sql.WindowSpec, error)
	resolve = func(spec *sql.WindowSpec, depth int) (*sql.WindowSpec, error) {
		if spec.Name == "" {
			return spec, nil
		}
		def, ok := defs[strings.ToLower(spec.Name)]
		if !ok {
			return nil, errorf(ErrAnalysis, "Window name '%s' is not defined", spec.Name)
		}
		if depth > len(defs) {
			return nil, errorf(ErrAnalysis, "Window '%s' refers to itself", spec.Name)
		}
		base, err := resolve(def.Spec, depth+1)
		if err != nil {
			return nil, err
		}
		if spec.PartitionBy == nil && spec.OrderBy == nil && spec.Frame == nil {
			return base, nil
		}
		switch {
		case spec.PartitionBy != nil:
			return nil, errorf(ErrAnalysis, "A window which refers to window '%s' cannot have PARTITION BY", def.Name)
		case spec.OrderBy != nil && base.OrderBy != nil:
			return nil, errorf(ErrAnalysis, "A window which refers to window '%s' cannot have ORDER BY: '%s' has one", def.Name, def.Name)
		case base.Frame != nil:
			return nil, errorf(ErrAnalysis, "Window '%s' has a frame, so a window that refers to it can add nothing", def.Name)
		}
		out := &sql.WindowSpec{PartitionBy: base.PartitionBy, OrderBy: base.OrderBy, Frame: spec.Frame}
		if spec.OrderBy != nil {
			out.OrderBy = spec.OrderBy
		}
		return out, nil
	}
	for _, w := range n.Windows {
		// Unused definitions are checked too, as MySQL does.
		if _, err := resolve(w.Spec, 0); err != nil {
			return err
		}
	}
	var visit func(e sql.Expr) error
	visit = func(e sql.Expr) error {
		if e == nil {
			return nil
		}
		if fc, ok := e.(*sql.FuncCall); ok && fc.Over != nil && fc.Over.Name != "" {
			spec, err := resolve(fc.Over, 0)
			if err != nil {
				return err
			}
			fc.Over = spec
		}
		for _, c := range children(e) {
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range n.Items {
		if err := visit(it.Expr); err != nil {
			return err
		}
	}
	for _, o := range n.OrderBy {
		if err := visit(o.Expr); err != nil {
			return err
		}
	}
	return nil
}
