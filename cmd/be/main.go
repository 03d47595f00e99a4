package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/clustersecret"
	"github.com/inlet-db/inlet/internal/gcfloor"
	"github.com/inlet-db/inlet/internal/metrics"
	"github.com/inlet-db/inlet/internal/redact"
	"github.com/inlet-db/inlet/internal/sysmem"
	"github.com/inlet-db/inlet/load/streamload"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/scan/flightsrv"
)

// heartbeatPath is dispatch.HeartbeatPath (cmd/be may not import dispatch;
// a test keeps them equal).
const heartbeatPath = "/api/be/heartbeat"

type config struct {
	port, httpPort int
	host           string
	fe             string
	secretFile     string
	advertise      string
	logLevel       string
	beat           time.Duration
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("be", flag.ContinueOnError)
	var c config
	fs.IntVar(&c.port, "port", 9070, "Arrow Flight port (0 picks a free one)")
	fs.StringVar(&c.host, "host", "127.0.0.1", "address to listen on (loopback unless told otherwise)")
	fs.StringVar(&c.fe, "fe", "", "FE HTTP address host:port to register and heartbeat with")
	fs.StringVar(&c.secretFile, "secret-file", "", "file holding the FE↔BE cluster secret (default $INLET_CLUSTER_SECRET)")
	fs.IntVar(&c.httpPort, "http-port", 8040, "HTTP port for /metrics and /api/update_config (0 picks a free one, -1 disables)")
	fs.StringVar(&c.advertise, "advertise", "", "Flight address the FE should dial (default the listening address)")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.DurationVar(&c.beat, "heartbeat", 3*time.Second, "heartbeat interval with --fe")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if c.port < 0 || c.port > 65535 {
		return c, fmt.Errorf("--port %d is not a port", c.port)
	}
	if c.httpPort < -1 || c.httpPort > 65535 {
		return c, fmt.Errorf("--http-port %d is not a port", c.httpPort)
	}
	if c.beat <= 0 {
		return c, fmt.Errorf("--heartbeat %s must be positive", c.beat)
	}
	return c, nil
}

func readSecret(file string) (string, error) {
	if file == "" {
		return os.Getenv(clustersecret.EnvVar), nil
	}
	s, err := clustersecret.Read(file)
	if err != nil {
		return "", fmt.Errorf("--secret-file: %w", err)
	}
	return s, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "inlet be:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	c, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(redact.Handler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	secret, err := readSecret(c.secretFile)
	if err != nil {
		return err
	}
	if secret == "" && c.fe != "" {
		return fmt.Errorf("--fe needs the FE's cluster secret: --secret-file <FE meta dir>/%s (or $%s)", clustersecret.FileName, clustersecret.EnvVar)
	}
	if secret == "" && !isLoopback(c.host) {
		return fmt.Errorf("--host %s is not loopback: set a cluster secret ($INLET_CLUSTER_SECRET or --secret-file)", c.host)
	}
	if secret == "" {
		log.Warn("no cluster secret: any local process can run fragments on this BE")
	}

	lis, err := net.Listen("tcp", net.JoinHostPort(c.host, strconv.Itoa(c.port)))
	if err != nil {
		return fmt.Errorf("flight listener: %w", err)
	}
	addr := lis.Addr().String()
	if c.advertise != "" {
		addr = c.advertise
	}
	// As the FE: no collection while the heap is small (internal/gcfloor).
	// A BE has no memory limit of its own: the floor is at most a quarter
	// of what the machine (or its cgroup) gives the process, so a BE in a
	// small container does not keep its garbage up to the default.
	gcfloor.Start(gcfloor.FloorFor(sysmem.PhysicalMemory()))
	ex := scan.NewExecutor(scan.Config{Name: addr, Logger: log})
	defer ex.Close()
	reg := metrics.NewRegistry()
	processGauges(reg)
	flightAddr := lis.Addr().String()
	srv, err := flightsrv.New(flightsrv.Config{Executor: ex, Secret: secret, Mem: memory.DefaultAllocator,
		ErrorCode: scan.ErrorCode, Metrics: reg, Logger: log,
		Own: func(a string) bool { return a == addr || a == flightAddr }})
	if err != nil {
		return err
	}
	g := srv.NewGRPCServer()
	errc := make(chan error, 2)
	go func() { errc <- g.Serve(lis) }()
	fmt.Fprintf(out, "flight listening on %s\n", lis.Addr())

	var hs *http.Server
	var loadAddr string // this BE's Stream Load address, announced to the FE
	if c.httpPort >= 0 {
		hl, err := net.Listen("tcp", net.JoinHostPort(c.host, strconv.Itoa(c.httpPort)))
		if err != nil {
			g.Stop()
			return fmt.Errorf("http listener: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", reg.Handler())
		mux.Handle("/api/update_config", updateConfig(ex, secret, log))
		if secret != "" {
			httpAddr := hl.Addr().String()
			mux.Handle(clustersecret.ChallengePath, clustersecret.Handler(secret, func(a string) bool { return a == httpAddr }))
		}
		if c.fe != "" {
			// Stream Load: this BE decodes the body and streams the batches
			// to the FE, which owns the tables.
			sl, err := streamload.NewBE(streamload.Config{Mem: memory.DefaultAllocator, Logger: log,
				Tables: &streamload.RemoteTables{FE: c.fe, Secret: secret, Mem: memory.DefaultAllocator}})
			if err != nil {
				g.Stop()
				return err
			}
			mux.Handle("/api/{db}/{table}/_stream_load", sl)
			mux.Handle(streamload.ErrorLogPath, sl)
			loadAddr = hl.Addr().String()
		}
		hs = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(hl); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		fmt.Fprintf(out, "http listening on %s\n", hl.Addr())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.fe != "" {
		go heartbeat(ctx, c.fe, addr, secret, c.beat, log)
		if loadAddr != "" {
			go announceLoad(ctx, c.fe, loadAddr, secret, c.beat, log)
		}
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		g.Stop()
		return err
	}
	log.Info("shutting down")
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = hs.Shutdown(sctx)
		cancel()
	}
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		g.Stop()
	}
	return nil
}

// heartbeat registers addr with the FE every interval until ctx ends. A
// failed beat is logged (once per change of state) and retried.
func heartbeat(ctx context.Context, fe, addr, secret string, every time.Duration, log *slog.Logger) {
	client := &http.Client{Timeout: every}
	u := "http://" + fe + heartbeatPath
	ok := true
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		err := beat(ctx, client, u, addr, secret)
		switch {
		case err != nil && ok:
			log.Warn("FE heartbeat failed", "fe", fe, "err", err)
		case err == nil && !ok:
			log.Info("registered with FE", "fe", fe, "addr", addr)
		}
		ok = err == nil
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func beat(ctx context.Context, client *http.Client, u, addr, secret string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(url.Values{"addr": {addr}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(flightsrv.SecretHeader, secret)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("FE answered %s", resp.Status)
	}
	return nil
}

// updateConfig changes BE settings at runtime, Doris style:
// POST /api/update_config?jni_scanner_heap_budget_ratio=0.4. Every key is
// checked before any is applied.
func updateConfig(ex *scan.Executor, secret string, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if secret == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get(flightsrv.SecretHeader)), []byte(secret)) != 1 {
			http.Error(w, "wrong cluster secret", http.StatusUnauthorized)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var apply []func()
		for k, vs := range r.Form {
			v := vs[len(vs)-1]
			switch k {
			case "jni_scanner_heap_budget_ratio":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || !(f > 0 && f <= 1) {
					http.Error(w, fmt.Sprintf("jni_scanner_heap_budget_ratio %q: want a number in (0, 1]", v), http.StatusBadRequest)
					return
				}
				apply = append(apply, func() { ex.SetHeapBudgetRatio(f); log.Info("BE config updated", "key", k, "value", f) })
			case "jni_scanner_heap_max_wait_ms":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					http.Error(w, fmt.Sprintf("jni_scanner_heap_max_wait_ms %q: want milliseconds >= 0", v), http.StatusBadRequest)
					return
				}
				apply = append(apply, func() {
					ex.SetHeapMaxWait(time.Duration(n) * time.Millisecond)
					log.Info("BE config updated", "key", k, "value", n)
				})
			default:
				http.Error(w, fmt.Sprintf("unknown BE config %q (known: jni_scanner_heap_budget_ratio, jni_scanner_heap_max_wait_ms)", k), http.StatusBadRequest)
				return
			}
		}
		for _, f := range apply {
			f()
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"status":"OK"}`)
	})
}

// announceLoad tells the FE, every interval, that this BE takes Stream
// Loads at addr (its HTTP listener), so the FE can redirect loads here.
func announceLoad(ctx context.Context, fe, addr, secret string, every time.Duration, log *slog.Logger) {
	client := &http.Client{Timeout: every}
	u := "http://" + fe + streamload.RegisterPath
	ok := true
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		err := func() error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(url.Values{"addr": {addr}}.Encode()))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(streamload.SecretHeader, secret)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
			if resp.StatusCode/100 != 2 {
				return fmt.Errorf("FE answered %s", resp.Status)
			}
			return nil
		}()
		if err != nil && ok {
			log.Warn("Stream Load registration with the FE failed", "fe", fe, "err", err)
		}
		ok = err == nil
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
