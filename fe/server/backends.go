package server

import (
	"context"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/dispatch"
)

// backendStates is a Runner that can report its BEs (dispatch.Dispatcher).
type backendStates interface {
	States(ctx context.Context) []dispatch.BackendState
}

// backendColumns are Doris's SHOW BACKENDS / SHOW PROC '/backends' columns
// (BackendsProcDir.TITLE_NAMES), in its order.
var backendColumns = []string{"BackendId", "Host", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort",
	"ArrowFlightSqlPort", "LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "TabletNum",
	"DataUsedCapacity", "TrashUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "MaxDiskUsedPct",
	"RemoteUsedCapacity", "Tag", "ErrMsg", "Version", "Status", "HeartbeatFailureCounter", "CpuCores",
	"Memory", "RunningTasks", "NodeRole"}

// backendsTable lists every BE: the in-process one, the --be ones (probed
// as the statement runs) and those that registered by heartbeat. What
// Inlet's BEs do not have (tablets, disks, brpc) is zero or -1; BePort is
// the Flight port fragments are sent to.
func (s *Session) backendsTable(ctx context.Context) *table {
	t := &table{names: backendColumns}
	var states []dispatch.BackendState
	if r, ok := s.srv.cfg.Runner.(backendStates); ok {
		states = r.States(ctx)
	} else {
		for i, a := range s.srv.cfg.Backends {
			states = append(states, dispatch.BackendState{ID: int64(10001 + i), Name: a, Kind: "static", Err: "not probed: this FE has no dispatcher"})
		}
	}
	when := func(at time.Time) string {
		if at.IsZero() {
			return "NULL"
		}
		return at.In(time.Local).Format(time.DateTime)
	}
	for _, b := range states {
		host, port, cpus := "127.0.0.1", "-1", "0"
		if b.Kind == "in-process" {
			cpus = strconv.Itoa(runtime.NumCPU())
		} else if h, p, err := net.SplitHostPort(b.Name); err == nil {
			host, port = h, p
		} else {
			host = b.Name
		}
		role := ""
		if b.Alive {
			role = "mix"
		}
		tag := `{"location" : "default", "inlet_kind" : "` + b.Kind + `"}`
		status := `{"lastSuccessReportTabletsTime":"N/A","lastStreamLoadTime":-1,"isQueryDisabled":false,"isLoadDisabled":false}`
		t.addStrings(strconv.FormatInt(b.ID, 10), host, "-1", port, "-1", "-1", "-1",
			when(b.Started), when(b.Heartbeat), strconv.FormatBool(b.Alive), "false", "0",
			"0.000 B", "0.000 B", "0.000 B", "0.000 B", "0.00 %", "0.00 %", "0.000 B",
			tag, b.Err, s.srv.cfg.Version, status, strconv.Itoa(b.Failures), cpus, "0.00 B", "0", role)
	}
	return t
}

// procTable answers SHOW PROC for the paths Inlet has.
func (s *Session) procTable(ctx context.Context, path string) (*table, error) {
	switch strings.TrimRight(path, "/") {
	case "/backends":
		return s.backendsTable(ctx), nil
	}
	return nil, errorf(errNotSupported, "Proc path '%s' doesn't exist (Inlet serves '/backends')", path)
}
