package minifluss

import (
	"context"
	"fmt"
	"strings"
)

// lakeStatement parses the lake controls of scenario files:
//
//	TIER [db.t];                     one tiering round (all lake tables without a name)
//	FREEZE TIERING; UNFREEZE TIERING;
//	COMPACT LAKE db.t;               rewrite the lake table's buckets into top-level files
//	LAKE HOLD READABLE; LAKE RELEASE READABLE;
//	LAKE EXPIRE LOG db.t;            move each bucket's log start to its tiered offset
//	LAKE OPTIONS ('k' = 'v', ...);   replace datalake.paimon.* (a "different paimon configuration")
//	LAKE LEGACY COLUMNS ON|OFF;      lake tables created later get __bucket/__offset/__timestamp (or not)
//	GENERATE INTO db.t FROM a TO b VALUES (expr, ...);
//	                                 rows for every id in [a, b]; expr is ID, ID MOD n, ID PLUS n [MOD m],
//	                                 or a literal whose strings have {id} replaced (big fixtures)
//
// ok is false when the statement is none of these.
func (p *scParser) lakeStatement() (run func(context.Context, *Cluster) error, verb string, ok bool, err error) {
	switch {
	case p.accept("TIER"):
		if p.peek().text == ";" || p.peek().text == "" {
			return func(ctx context.Context, c *Cluster) error { return c.TierAll(ctx) }, "TIER", true, nil
		}
		db, t, err := p.tablePath()
		if err != nil {
			return nil, "TIER", true, err
		}
		return func(ctx context.Context, c *Cluster) error { _, err := c.TierLake(ctx, db, t); return err }, "TIER", true, nil
	case p.accept("FREEZE"), p.accept("UNFREEZE"):
		frozen := p.toks[p.i-1].text != "UNFREEZE" && p.toks[p.i-1].text != "unfreeze"
		verb := "FREEZE TIERING"
		if !frozen {
			verb = "UNFREEZE TIERING"
		}
		if err := p.expect("TIERING"); err != nil {
			return nil, verb, true, err
		}
		return func(ctx context.Context, c *Cluster) error { c.FreezeTiering(frozen); return nil }, verb, true, nil
	case p.accept("COMPACT"):
		db, t, err := p.tableAfter("LAKE")
		if err != nil {
			return nil, "COMPACT LAKE", true, err
		}
		return func(ctx context.Context, c *Cluster) error { _, err := c.CompactLake(ctx, db, t); return err }, "COMPACT LAKE", true, nil
	case p.accept("GENERATE"):
		run, err := p.generate()
		return run, "GENERATE", true, err
	case p.accept("LAKE"):
		switch {
		case p.accept("HOLD"), p.accept("RELEASE"):
			hold := p.toks[p.i-1].text == "HOLD" || p.toks[p.i-1].text == "hold"
			if err := p.expect("READABLE"); err != nil {
				return nil, "LAKE READABLE", true, err
			}
			return func(ctx context.Context, c *Cluster) error { c.HoldLakeReadable(hold); return nil }, "LAKE READABLE", true, nil
		case p.accept("EXPIRE"):
			db, t, err := p.tableAfter("LOG")
			if err != nil {
				return nil, "LAKE EXPIRE LOG", true, err
			}
			return func(ctx context.Context, c *Cluster) error { return c.ExpireTieredLog(ctx, db, t) }, "LAKE EXPIRE LOG", true, nil
		case p.accept("LEGACY"):
			if err := p.expect("COLUMNS"); err != nil {
				return nil, "LAKE LEGACY COLUMNS", true, err
			}
			on := p.accept("ON")
			if !on {
				if err := p.expect("OFF"); err != nil {
					return nil, "LAKE LEGACY COLUMNS", true, err
				}
			}
			return func(ctx context.Context, c *Cluster) error { c.SetLegacySystemColumns(on); return nil }, "LAKE LEGACY COLUMNS", true, nil
		case p.accept("OPTIONS"):
			opts, err := p.options()
			if err != nil {
				return nil, "LAKE OPTIONS", true, err
			}
			return func(ctx context.Context, c *Cluster) error { return c.SetLakeOptions(opts) }, "LAKE OPTIONS", true, nil
		}
		return nil, "LAKE", true, p.errf("expected HOLD, RELEASE, EXPIRE, LEGACY or OPTIONS after LAKE, found %s", p.peek())
	}
	return nil, "", false, nil
}

// genExpr computes one column of a generated row from the id.
type genExpr func(id int64) any

func (p *scParser) generate() (func(context.Context, *Cluster) error, error) {
	db, t, err := p.tableAfter("INTO")
	if err != nil {
		return nil, err
	}
	from, err := p.intAfter("FROM", "the first id")
	if err != nil {
		return nil, err
	}
	to, err := p.intAfter("TO", "the last id")
	if err != nil {
		return nil, err
	}
	if to < from || to-from >= 100_000_000 {
		return nil, p.errf("GENERATE range [%d, %d] is empty or larger than 10^8 rows", from, to)
	}
	if err := p.expect("VALUES", "("); err != nil {
		return nil, err
	}
	var exprs []genExpr
	for {
		switch {
		case p.accept("ID"):
			switch {
			case p.accept("MOD"):
				n, err := p.integer("the modulus")
				if err != nil {
					return nil, err
				}
				if n == 0 {
					return nil, p.errf("ID MOD 0")
				}
				exprs = append(exprs, func(id int64) any { return id % n })
			case p.accept("PLUS"):
				n, err := p.integer("the addend")
				if err != nil {
					return nil, err
				}
				if p.accept("MOD") {
					m, err := p.integer("the modulus")
					if err != nil {
						return nil, err
					}
					if m == 0 {
						return nil, p.errf("ID PLUS n MOD 0")
					}
					exprs = append(exprs, func(id int64) any { return (id + n) % m })
					break
				}
				exprs = append(exprs, func(id int64) any { return id + n })
			default:
				exprs = append(exprs, func(id int64) any { return id })
			}
		default:
			v, err := p.literal()
			if err != nil {
				return nil, err
			}
			if s, ok := v.(string); ok && strings.Contains(s, "{id}") {
				exprs = append(exprs, func(id int64) any { return strings.ReplaceAll(s, "{id}", fmt.Sprint(id)) })
			} else {
				exprs = append(exprs, func(int64) any { return v })
			}
		}
		if p.accept(")") {
			break
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, c *Cluster) error {
		info, err := c.Table(db, t)
		if err != nil {
			return err
		}
		const chunk = 10000
		for lo := from; lo <= to; lo += chunk {
			hi := min(lo+chunk-1, to)
			rows := make([][]any, 0, hi-lo+1)
			for id := lo; id <= hi; id++ {
				row := make([]any, len(exprs))
				for i, e := range exprs {
					row[i] = e(id)
				}
				rows = append(rows, row)
			}
			if len(info.PrimaryKey) > 0 {
				err = c.Upsert(ctx, db, t, rows)
			} else {
				err = c.Append(ctx, db, t, rows)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, nil
}
