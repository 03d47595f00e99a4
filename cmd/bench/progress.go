package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line bar (carriage return, no newline until the
// end) at most every redraw, so a fast generator is not slowed by it.
type progress struct {
	w           io.Writer
	label       string
	total, done int64
	start, last time.Time
	drawn       bool
}

const (
	barWidth = 30
	redraw   = 200 * time.Millisecond
)

func newProgress(w io.Writer, label string, total int64) *progress {
	return &progress{w: w, label: label, total: max(total, 1), start: time.Now()}
}

func (p *progress) add(n int64) {
	p.done += n
	if now := time.Now(); now.Sub(p.last) >= redraw || p.done >= p.total {
		p.last = now
		p.draw()
	}
}

func (p *progress) draw() {
	frac := float64(p.done) / float64(p.total)
	frac = min(max(frac, 0), 1)
	fill := int(frac * barWidth)
	rate := float64(p.done) / max(time.Since(p.start).Seconds(), 1e-9)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d/%d rows %s rows/s ", p.label,
		strings.Repeat("#", fill), strings.Repeat(".", barWidth-fill), frac*100, p.done, p.total, humanCount(rate))
	p.drawn = true
}

// pause ends the bar's line so other messages can be printed; the next
// add draws it again.
func (p *progress) pause() {
	if p.drawn {
		p.draw()
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) finish() {
	p.draw()
	fmt.Fprintf(p.w, "\n%s: %d rows in %s\n", p.label, p.done, time.Since(p.start).Round(time.Millisecond))
}

// humanCount prints 1234567 as 1.23M.
func humanCount(f float64) string {
	switch {
	case f >= 1e9:
		return fmt.Sprintf("%.2fG", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.2fM", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.1fk", f/1e3)
	}
	return fmt.Sprintf("%.0f", f)
}
