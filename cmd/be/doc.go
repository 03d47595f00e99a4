// Command be is the Inlet BE worker: it executes scan ranges (lake splits,
// Fluss log and primary-key ranges, log tails) and streams Arrow batches back
// to the FE over Arrow Flight (scan/flightsrv).
//
//	be [--port 9070] [--host 127.0.0.1] [--fe host:port] [--secret-file F]
//	   [--http-port 8040] [--advertise host:port]
//
// The cluster secret comes from $INLET_CLUSTER_SECRET or --secret-file (the
// FE makes <meta-dir>/cluster_secret on first start); a BE listening beyond
// loopback, or started with --fe, refuses to start without one. With --fe
// the BE registers with the FE's HTTP port (dispatch.HeartbeatPath) and
// heartbeats every 3 s; before the FE uses it, the BE answers the FE's
// challenge (internal/clustersecret) on its Flight and HTTP addresses. The HTTP port serves /metrics (Prometheus text format) and
// POST /api/update_config?jni_scanner_heap_budget_ratio=0.5&jni_scanner_heap_max_wait_ms=60000
// (secret in the inlet-cluster-secret header), as Doris BEs do.
//
// On start it prints "flight listening on ADDR" and "http listening on ADDR"
// to stdout (tests and scripts read the ports from there).
package main
