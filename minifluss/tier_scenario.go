package minifluss

import "context"

// lakeStatement parses the lake controls of scenario files:
//
//	TIER [db.t];                     one tiering round (all lake tables without a name)
//	FREEZE TIERING; UNFREEZE TIERING;
//	COMPACT LAKE db.t;               rewrite the lake table's buckets into top-level files
//	LAKE HOLD READABLE; LAKE RELEASE READABLE;
//	LAKE EXPIRE LOG db.t;            move each bucket's log start to its tiered offset
//	LAKE OPTIONS ('k' = 'v', ...);   replace datalake.paimon.* (a "different paimon configuration")
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
		if err := p.expect("LAKE"); err != nil {
			return nil, "COMPACT LAKE", true, err
		}
		db, t, err := p.tablePath()
		if err != nil {
			return nil, "COMPACT LAKE", true, err
		}
		return func(ctx context.Context, c *Cluster) error { _, err := c.CompactLake(ctx, db, t); return err }, "COMPACT LAKE", true, nil
	case p.accept("LAKE"):
		switch {
		case p.accept("HOLD"), p.accept("RELEASE"):
			hold := p.toks[p.i-1].text == "HOLD" || p.toks[p.i-1].text == "hold"
			if err := p.expect("READABLE"); err != nil {
				return nil, "LAKE READABLE", true, err
			}
			return func(ctx context.Context, c *Cluster) error { c.HoldLakeReadable(hold); return nil }, "LAKE READABLE", true, nil
		case p.accept("EXPIRE"):
			if err := p.expect("LOG"); err != nil {
				return nil, "LAKE EXPIRE LOG", true, err
			}
			db, t, err := p.tablePath()
			if err != nil {
				return nil, "LAKE EXPIRE LOG", true, err
			}
			return func(ctx context.Context, c *Cluster) error { return c.ExpireTieredLog(ctx, db, t) }, "LAKE EXPIRE LOG", true, nil
		case p.accept("OPTIONS"):
			opts, err := p.options()
			if err != nil {
				return nil, "LAKE OPTIONS", true, err
			}
			return func(ctx context.Context, c *Cluster) error { return c.SetLakeOptions(opts) }, "LAKE OPTIONS", true, nil
		}
		return nil, "LAKE", true, p.errf("expected HOLD, RELEASE, EXPIRE or OPTIONS after LAKE, found %s", p.peek())
	}
	return nil, "", false, nil
}
