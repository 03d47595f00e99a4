package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Registry holds metric families.
type Registry struct {
	mu       sync.Mutex
	families []*Vec
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Vec is a family of series of one kind, one per combination of label
// values.
type Vec struct {
	name, help, kind string
	labels           []string

	mu     sync.Mutex
	series map[string]*series
	// fn, when set, gives the value at scrape time (a label-less gauge of
	// something the process already knows, such as its resident memory).
	fn func() float64
}

type series struct {
	values []string
	v      float64
}

// Counter adds a counter family. Names should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *Vec {
	return r.add(name, help, "counter", labels)
}

// Gauge adds a gauge family.
func (r *Registry) Gauge(name, help string, labels ...string) *Vec {
	return r.add(name, help, "gauge", labels)
}

// GaugeFunc adds a label-less gauge whose value f computes at each scrape.
func (r *Registry) GaugeFunc(name, help string, f func() float64) *Vec {
	v := r.add(name, help, "gauge", nil)
	v.fn = f
	return v
}

func (r *Registry) add(name, help, kind string, labels []string) *Vec {
	v := &Vec{name: name, help: help, kind: kind, labels: labels, series: map[string]*series{}}
	r.mu.Lock()
	r.families = append(r.families, v)
	r.mu.Unlock()
	return v
}

// Add adds d to the series of the label values (one per label, in order).
// Counters ignore negative d.
func (v *Vec) Add(d float64, values ...string) {
	if v.kind == "counter" && d < 0 {
		return
	}
	v.with(values, func(s *series) { s.v += d })
}

// Inc adds 1.
func (v *Vec) Inc(values ...string) { v.Add(1, values...) }

// Set sets a gauge's series.
func (v *Vec) Set(x float64, values ...string) { v.with(values, func(s *series) { s.v = x }) }

// Value returns the current value of a series (0 when absent).
func (v *Vec) Value(values ...string) float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.series[strings.Join(values, "\xff")]; ok {
		return s.v
	}
	return 0
}

func (v *Vec) with(values []string, f func(*series)) {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", v.name, len(v.labels), len(values)))
	}
	k := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.series[k]
	if !ok {
		s = &series{values: slices.Clone(values)}
		v.series[k] = s
	}
	f(s)
}

// WriteTo writes every family in the text exposition format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	fams := slices.Clone(r.families)
	r.mu.Unlock()
	cw := &countingWriter{w: bufio.NewWriter(w)}
	for _, v := range fams {
		v.write(cw)
	}
	if cw.err == nil {
		cw.err = cw.w.(*bufio.Writer).Flush()
	}
	return cw.n, cw.err
}

func (v *Vec) write(w *countingWriter) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", v.name, escapeHelp(v.help), v.name, v.kind)
	if v.fn != nil {
		w.WriteString(v.name + " " + formatValue(v.fn()) + "\n")
		return
	}
	// Copy the values under the lock: writers keep adding while we print.
	v.mu.Lock()
	ss := make([]series, 0, len(v.series))
	for _, s := range v.series {
		ss = append(ss, *s)
	}
	v.mu.Unlock()
	slices.SortFunc(ss, func(a, b series) int { return slices.Compare(a.values, b.values) })
	for _, s := range ss {
		w.WriteString(v.name)
		if len(v.labels) > 0 {
			w.WriteString("{")
			for i, l := range v.labels {
				if i > 0 {
					w.WriteString(",")
				}
				fmt.Fprintf(w, "%s=\"%s\"", l, escapeLabel(s.values[i]))
			}
			w.WriteString("}")
		}
		w.WriteString(" " + formatValue(s.v) + "\n")
	}
}

func formatValue(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

// Handler serves the registry.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = r.WriteTo(w)
	})
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

func (c *countingWriter) WriteString(s string) { _, _ = c.Write([]byte(s)) }
