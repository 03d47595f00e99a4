package streamload

import (
	"errors"
	"log/slog"
	"net/http"
)

// FEConfig configures the FE leg.
type FEConfig struct {
	Tables Tables
	// Backend returns the host:port of the BE HTTP listener a load goes to.
	Backend func(r *http.Request) (string, error)
	Logger  *slog.Logger
}

// FE is the FE leg: checks, then a redirect to a BE.
type FE struct {
	cfg FEConfig
	log *slog.Logger
	mux *http.ServeMux
}

// NewFE builds the FE leg's handler.
func NewFE(cfg FEConfig) (*FE, error) {
	if cfg.Tables == nil || cfg.Backend == nil {
		return nil, errors.New("streamload: FE needs Tables and Backend")
	}
	h := &FE{cfg: cfg, log: cfg.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("/api/{db}/{table}/_stream_load", h.redirect)
	return h, nil
}

// ServeHTTP serves /api/{db}/{table}/_stream_load.
func (h *FE) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// redirect answers 307 to a BE once the user, the privilege and the table
// check out. It never touches the body: Go's server sends "100 Continue"
// only when a handler reads the body, so a client that asked for it
// uploads nothing here.
//
// Doris puts the user and password into the Location URL's userinfo;
// Inlet does not (a password in a URL ends up in logs and proxies). The
// clients Doris documents resend the Authorization header themselves
// (curl --location-trusted, the Doris sinks), and the BE checks it again.
func (h *FE) redirect(w http.ResponseWriter, r *http.Request) {
	res := &Result{Label: r.Header.Get("label")}
	if openTable(w, r, h.cfg.Tables, res) == nil {
		return
	}
	be, err := h.cfg.Backend(r)
	if err != nil {
		res.Status, res.Message = StatusFail, "no BE to load into: "+err.Error()
		writeResult(w, http.StatusServiceUnavailable, res)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	loc := scheme + "://" + be + r.URL.RequestURI()
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusTemporaryRedirect)
}
