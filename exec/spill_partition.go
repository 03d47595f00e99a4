package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// spillFanout is how many partitions one level of a grace hash join or a
// spilling aggregation splits its rows into.
const spillFanout = 16

// spillMaxLevel bounds the recursion: a partition still too large after
// this many splits (one key holding most rows) is processed in memory,
// under the ordinary limit.
const spillMaxLevel = 3

// levelSeeds make each level split on other bits of the key hash than the
// level above, so the rows of one partition spread again.
var levelSeeds = [...]uint64{0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89, 0x452821E638D01377}

// partitioner writes rows to spillFanout files by the hash of their key
// expressions. Equal keys (in the common type of both sides, for a join)
// land in the same partition whichever side they come from; every NULL key
// in one.
type partitioner struct {
	cfg    *spillConfig
	schema *arrow.Schema // of every file, whatever field flags the batches carry
	keys   []expr.Expr
	cols   []keyCol
	files  [spillFanout]*spillFile
	what   string
	h      []uint64
}

func newPartitioner(cfg *spillConfig, schema *arrow.Schema, keys []expr.Expr, what string) *partitioner {
	p := &partitioner{cfg: cfg, schema: schema, keys: keys, what: what}
	for _, k := range keys {
		p.cols = append(p.cols, newKeyCol(k.DataType()))
	}
	return p
}

// add splits b by key and appends each part to its partition's file.
func (p *partitioner) add(ctx context.Context, env *Env, b arrow.RecordBatch) error {
	rows := int(b.NumRows())
	if rows == 0 {
		return nil
	}
	keys, err := evalKeys(env, p.keys, b)
	if err != nil {
		return err
	}
	defer releaseArrays(keys)
	return p.addKeyed(ctx, env, b, keys)
}

// addKeyed is add with the key columns already evaluated.
func (p *partitioner) addKeyed(ctx context.Context, env *Env, b arrow.RecordBatch, keys []arrow.Array) error {
	rows := int(b.NumRows())
	if cap(p.h) < rows {
		p.h = make([]uint64, rows)
	}
	h := p.h[:rows]
	seed := levelSeeds[min(p.cfg.level, len(levelSeeds)-1)]
	for i := range h {
		h[i] = seed
	}
	for i, c := range p.cols {
		c.bind(keys[i])
		c.hash(h)
	}
	var idx [spillFanout][]int64
	for r, hv := range h {
		part := mix64(hv^seed) % spillFanout
		idx[part] = append(idx[part], int64(r))
	}
	for part, ix := range idx {
		if len(ix) == 0 {
			continue
		}
		var sub arrow.RecordBatch
		if len(ix) == rows {
			b.Retain()
			sub = b
		} else {
			var err error
			if sub, err = takeBatch(ctx, env, b, ix); err != nil {
				return err
			}
		}
		err := p.write(env, part, sub)
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *partitioner) write(env *Env, part int, b arrow.RecordBatch) error {
	f := p.files[part]
	if f == nil {
		var err error
		if f, err = p.cfg.newSpillFile(env, p.schema, p.what); err != nil {
			return err
		}
		p.files[part] = f
	}
	return f.writeAs(b)
}

// finish closes every file for writing.
func (p *partitioner) finish() error {
	for _, f := range p.files {
		if f != nil {
			if err := f.finish(); err != nil {
				return err
			}
		}
	}
	return nil
}

// take hands partition part's file to the caller (nil when it got no
// rows): from then on the caller removes it.
func (p *partitioner) take(part int) *spillFile {
	f := p.files[part]
	p.files[part] = nil
	return f
}

// remove deletes the files not handed out.
func (p *partitioner) remove() {
	for i, f := range p.files {
		if f != nil {
			f.remove()
			p.files[i] = nil
		}
	}
}
