package client

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Pool keeps connections to Fluss servers for reuse across clients, queries
// and scan ranges. Connections are keyed by (full client configuration,
// server address): two clients with identical Configs share connections, and
// any change (e.g. a new SASL password) opens new ones. A connection nobody
// has used for its Config's IdleTimeout is closed by a background sweeper.
//
// A Pool is safe for concurrent use. Close it when the process is done with
// it; it then closes every connection.
type Pool struct {
	log *slog.Logger

	mu     sync.Mutex
	conns  map[string]*poolEntry
	closed bool
	wake   chan struct{} // nudges the sweeper when a new idle timeout appears

	opened atomic.Int64
	closes atomic.Int64
	stop   chan struct{}
	wg     sync.WaitGroup
}

type poolEntry struct {
	ready chan struct{} // closed when dialing finished
	c     *conn
	err   error
	idle  time.Duration
}

// PoolStats counts connections.
type PoolStats struct {
	Opened int64 // connections successfully opened since the pool was made
	Closed int64 // of those, closed since (idle, broken or pool closed)
	Open   int   // currently open
}

// NewPool starts an empty pool. A nil logger discards.
func NewPool(log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pool{log: log, conns: map[string]*poolEntry{}, stop: make(chan struct{}), wake: make(chan struct{}, 1)}
	p.wg.Add(1)
	go p.sweep()
	return p
}

// Stats returns the connection counters.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	open := 0
	for _, e := range p.conns {
		select {
		case <-e.ready:
			if e.c != nil && e.c.alive() {
				open++
			}
		default:
		}
	}
	p.mu.Unlock()
	return PoolStats{Opened: p.opened.Load(), Closed: p.closes.Load(), Open: open}
}

// get returns a leased, ready connection to addr for cfg, dialing if needed.
// The caller must release it.
func (p *Pool) get(ctx context.Context, cfg Config, cfgKey, addr string) (*conn, error) {
	key := cfgKey + "|" + addr
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		e := p.conns[key]
		if e == nil {
			e = &poolEntry{ready: make(chan struct{}), idle: cfg.IdleTimeout}
			p.conns[key] = e
			p.mu.Unlock()
			c, err := dial(ctx, addr, cfg, p.log)
			p.mu.Lock()
			e.c, e.err = c, err
			close(e.ready)
			if err != nil {
				delete(p.conns, key)
				p.mu.Unlock()
				return nil, err
			}
			p.opened.Add(1)
			closed := p.closed
			p.mu.Unlock()
			if closed {
				c.fail(ErrClosed)
				p.closes.Add(1)
				return nil, ErrClosed
			}
			p.log.Debug("fluss: connection opened", "server", addr)
			select {
			case p.wake <- struct{}{}:
			default:
			}
			if c.acquire() {
				return c, nil
			}
			continue
		}
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			// Another caller's dial failed; try our own.
			p.mu.Lock()
			if p.conns[key] == e {
				delete(p.conns, key)
			}
			p.mu.Unlock()
			continue
		}
		if e.c.acquire() {
			return e.c, nil
		}
		// Dead connection: forget it and dial again (reconnect).
		p.mu.Lock()
		if p.conns[key] == e {
			delete(p.conns, key)
			p.closes.Add(1)
		}
		p.mu.Unlock()
	}
}

// sweep closes idle connections and drops dead ones.
func (p *Pool) sweep() {
	defer p.wg.Done()
	for {
		d := p.sweepInterval()
		t := time.NewTimer(d)
		select {
		case <-p.stop:
			t.Stop()
			return
		case <-p.wake:
			t.Stop()
			continue
		case <-t.C:
		}
		now := time.Now()
		p.mu.Lock()
		for k, e := range p.conns {
			select {
			case <-e.ready:
			default:
				continue
			}
			if e.c == nil {
				continue
			}
			if e.c.closeIfIdle(now, e.idle) {
				delete(p.conns, k)
				p.closes.Add(1)
				p.log.Debug("fluss: connection closed", "server", e.c.addr)
			}
		}
		p.mu.Unlock()
	}
}

// sweepInterval is a quarter of the shortest idle timeout among the pooled
// connections, between 5 ms and 5 s.
func (p *Pool) sweepInterval() time.Duration {
	d := 5 * time.Second
	p.mu.Lock()
	for _, e := range p.conns {
		if q := e.idle / 4; q < d {
			d = q
		}
	}
	p.mu.Unlock()
	return max(d, 5*time.Millisecond)
}

// Close closes every connection; calls in flight fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	conns := p.conns
	p.conns = map[string]*poolEntry{}
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
	for _, e := range conns {
		<-e.ready
		if e.c != nil {
			p.closes.Add(1)
			e.c.fail(ErrClosed)
		}
	}
	return nil
}
