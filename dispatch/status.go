package dispatch

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// BackendState is what SHOW BACKENDS shows of one BE.
type BackendState struct {
	// ID is stable for the dispatcher's life (first seen, first numbered).
	ID int64
	// Name is the BE's address ("local" for the in-process BE).
	Name string
	// Kind is "in-process", "static" (a --be address) or "registered"
	// (a BE that heartbeats to the FE).
	Kind string
	// Alive: the in-process BE always; a static BE when it answered a
	// probe just now; a registered BE while its heartbeats are within TTL.
	Alive bool
	// Started is when the BE was first seen alive; Heartbeat when it last
	// was (zero: never).
	Started, Heartbeat time.Time
	// Err says why a BE is not alive (the probe's error, an expired
	// heartbeat, the failure that took it out of rotation).
	Err string
	// Failures counts probes failed in a row.
	Failures int
}

// probeTimeout bounds the liveness probe of one static BE.
const probeTimeout = 2 * time.Second

// pinger is a Backend that can be probed (FlightBackend).
type pinger interface {
	Ping(ctx context.Context) error
}

// Ping checks the BE answers with this cluster's secret: it opens
// ListActions, which the BE authorises and then refuses as unimplemented.
func (b *FlightBackend) Ping(ctx context.Context) error {
	client, err := b.flightClient()
	if err != nil {
		return err
	}
	ctx = metadata.AppendToOutgoingContext(ctx, SecretHeader, b.secret)
	s, err := client.ListActions(ctx, &flight.Empty{})
	if err == nil {
		_, err = s.Recv()
	}
	switch {
	case err == nil, errors.Is(err, io.EOF), status.Code(err) == codes.Unimplemented:
		return nil
	case status.Code(err) == codes.Unauthenticated:
		return errors.New("the BE refuses this FE's cluster secret (INLET_CLUSTER_SECRET)")
	case status.Code(err) == codes.DeadlineExceeded:
		return errors.New("no answer within " + probeTimeout.String())
	case status.Code(err) == codes.Unavailable:
		// gRPC's text nests the dial error; its last part says why.
		msg := status.Convert(err).Message()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return errors.New("unreachable: " + strings.Trim(msg, `"`))
	}
	return err
}

// beBook numbers BEs and remembers what the probes saw.
type beBook struct {
	mu    sync.Mutex
	next  int64
	known map[string]*BackendState
}

func (k *beBook) get(name string) *BackendState {
	if k.known == nil {
		k.known, k.next = map[string]*BackendState{}, 10001
	}
	st := k.known[name]
	if st == nil {
		st = &BackendState{ID: k.next, Name: name}
		k.next++
		k.known[name] = st
	}
	return st
}

// States reports every BE the dispatcher knows, sorted by name: the
// in-process one, the static ones (probed now, in parallel) and the
// registered ones, including those whose heartbeats stopped.
func (d *Dispatcher) States(ctx context.Context) []BackendState {
	now := d.cfg.Now()
	type probe struct {
		st  *BackendState
		err error
	}
	var probes []*probe
	var wg sync.WaitGroup
	d.book.mu.Lock()
	var out []*BackendState
	for _, b := range d.cfg.Backends {
		st := d.book.get(b.Name())
		out = append(out, st)
		p, ok := b.(pinger)
		if !ok {
			st.Kind, st.Alive, st.Heartbeat, st.Err = "in-process", true, now, ""
			if st.Started.IsZero() {
				st.Started = d.started
			}
			continue
		}
		st.Kind = "static"
		pr := &probe{st: st}
		probes = append(probes, pr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			pr.err = p.Ping(pctx)
		}()
	}
	if d.cfg.Registry != nil {
		seen := map[string]bool{}
		for _, m := range d.cfg.Registry.memberStates() {
			st := d.book.get(m.addr)
			if st.Kind == "static" {
				continue // a --be BE that also heartbeats: the probe decides
			}
			seen[m.addr] = true
			st.Kind, st.Heartbeat, st.Started = "registered", m.seen, m.first
			st.Alive = m.live
			st.Err = ""
			if !m.live {
				st.Err = "no heartbeat since " + m.seen.Format(time.DateTime)
			}
			out = append(out, st)
		}
		// A BE the registry forgot (heartbeats stopped past the TTL) stays
		// listed, dead, as Doris keeps a BE until it is dropped.
		for name, st := range d.book.known {
			if st.Kind == "registered" && !seen[name] {
				st.Alive = false
				st.Err = "no heartbeat since " + st.Heartbeat.Format(time.DateTime)
				out = append(out, st)
			}
		}
	}
	d.book.mu.Unlock()
	wg.Wait()
	d.book.mu.Lock()
	defer d.book.mu.Unlock()
	for _, pr := range probes {
		st := pr.st
		if pr.err == nil {
			if !st.Alive || st.Started.IsZero() {
				st.Started = now
			}
			st.Alive, st.Heartbeat, st.Err, st.Failures = true, now, "", 0
			continue
		}
		st.Alive, st.Err = false, pr.err.Error()
		st.Failures++
	}
	d.mu.Lock()
	for _, st := range out {
		if until, ok := d.down[st.Name]; ok && now.Before(until) && st.Alive {
			st.Err = "out of rotation after a failed query until " + until.Format(time.DateTime)
		}
	}
	d.mu.Unlock()
	res := make([]BackendState, 0, len(out))
	for _, st := range out {
		res = append(res, *st)
	}
	slices.SortFunc(res, func(a, b BackendState) int { return int(a.ID - b.ID) })
	res = slices.CompactFunc(res, func(a, b BackendState) bool { return a.ID == b.ID })
	return res
}
