package dispatch

import (
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/internal/directticket"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Direct splits f over the live BEs as Run would (the same placement, so
// ranges that must be read together stay together) and signs each BE's
// fragment as a direct ticket valid until expiry, for a client to read
// from that BE itself (Flight SQL's BE-direct endpoints). ok is false
// when some part would run on a BE without a Flight address (one inside
// the FE) or without a cluster secret: the FE then serves the result.
func (d *Dispatcher) Direct(f *inletpb.Fragment, expiry time.Time) (addrs []string, tickets [][]byte, ok bool) {
	bes := d.Backends()
	if len(bes) == 0 {
		return nil, nil, false
	}
	base := proto.Clone(f).(*inletpb.Fragment)
	base.Ranges = nil
	groups := assign(f.GetRanges(), bes)
	if len(f.GetRanges()) == 0 {
		groups[0] = []*inletpb.Range{} // one BE still answers with the schema
	}
	for i, rs := range groups {
		if rs == nil {
			continue
		}
		fb, isFlight := bes[i].(*FlightBackend)
		// A BE dialled with options of its own (TLS credentials) is not
		// announced: the client would not know how to reach it.
		if !isFlight || fb.secret == "" || len(fb.cfg.dial) > 0 {
			return nil, nil, false
		}
		sub := proto.Clone(base).(*inletpb.Fragment)
		sub.Ranges = rs
		b, err := proto.Marshal(sub)
		if err != nil {
			return nil, nil, false
		}
		addrs = append(addrs, fb.addr)
		tickets = append(tickets, directticket.Sign(fb.secret, b, expiry))
	}
	return addrs, tickets, len(addrs) > 0
}
