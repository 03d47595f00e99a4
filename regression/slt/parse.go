package slt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// Kind is the type of a record.
type Kind int

// The record types of the format.
const (
	Statement Kind = iota
	Query
	HashThreshold
	Halt
)

// Condition is one skipif/onlyif line in front of a record.
type Condition struct {
	Only   bool // onlyif (else skipif)
	Engine string
}

// Record is one record of a file.
type Record struct {
	Kind Kind
	// Line is the 1-based line of the record's first line (after its
	// conditions), as the reference harness reports it.
	Line       int
	Conditions []Condition
	SQL        string
	// ExpectError is set for "statement error".
	ExpectError bool
	// Types, Sort and Label come from "query <types> [<sort> [<label>]]".
	Types string
	Sort  string
	Label string
	// Expected holds the lines after "----", one value (or one hash line)
	// each.
	Expected []string
	// Threshold is the argument of hash-threshold.
	Threshold int
}

// Applies reports whether the record runs on engine under its conditions,
// with the reference harness's rule: any matching skipif, or any onlyif
// that does not match, skips it.
func (r *Record) Applies(engine string) bool {
	for _, c := range r.Conditions {
		match := strings.EqualFold(c.Engine, engine)
		if c.Only != match {
			return false
		}
	}
	return true
}

// ParseFile parses a file.
func ParseFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// ParseString parses the text of a file.
func ParseString(s string) ([]Record, error) { return Parse(strings.NewReader(s)) }

// line is one input line after the harness's normalisation: \r dropped,
// an all-space line made empty.
type line struct {
	n    int
	text string
}

// Parse reads records. Comment lines ('#' first) are dropped wherever they
// are, as the harness's nextLine does; a record ends at an empty line.
func Parse(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var block []line
	var recs []Record
	n := 0
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		rec, err := parseBlock(block)
		block = block[:0]
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	}
	for sc.Scan() {
		n++
		t := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(t) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		if t[0] == '#' {
			continue
		}
		block = append(block, line{n, t})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return recs, nil
}

func parseBlock(block []line) (Record, error) {
	var rec Record
	first := block[0].n
	for len(block) > 0 {
		tok := strings.Fields(block[0].text)
		if tok[0] != "skipif" && tok[0] != "onlyif" {
			break
		}
		if len(tok) < 2 {
			return rec, fmt.Errorf("line %d: %s without an engine", block[0].n, tok[0])
		}
		rec.Conditions = append(rec.Conditions, Condition{Only: tok[0] == "onlyif", Engine: tok[1]})
		block = block[1:]
	}
	if len(block) == 0 {
		return rec, fmt.Errorf("line %d: conditions without a record", first)
	}
	head := block[0]
	rec.Line = head.n
	tok := strings.Fields(head.text)
	body := block[1:]
	switch tok[0] {
	case "statement":
		rec.Kind = Statement
		if len(tok) < 2 || (tok[1] != "ok" && tok[1] != "error") {
			return rec, fmt.Errorf("line %d: statement argument should be 'ok' or 'error'", head.n)
		}
		rec.ExpectError = tok[1] == "error"
		rec.SQL = joinLines(body)
		if rec.SQL == "" {
			return rec, fmt.Errorf("line %d: statement without SQL", head.n)
		}
	case "query":
		rec.Kind = Query
		if len(tok) < 2 {
			return rec, fmt.Errorf("line %d: missing type string", head.n)
		}
		rec.Types = tok[1]
		for _, c := range rec.Types {
			if c != 'T' && c != 'I' && c != 'R' {
				return rec, fmt.Errorf("line %d: unknown type character '%c' in type string", head.n, c)
			}
		}
		if len(tok) > 2 {
			rec.Sort = tok[2]
		}
		switch rec.Sort {
		case "", "nosort", "rowsort", "valuesort":
		default:
			return rec, fmt.Errorf("line %d: unknown sort method: '%s'", head.n, rec.Sort)
		}
		if len(tok) > 3 {
			rec.Label = tok[3]
		}
		i := 0
		for i < len(body) && body[i].text != "----" {
			i++
		}
		rec.SQL = joinLines(body[:i])
		if rec.SQL == "" {
			return rec, fmt.Errorf("line %d: query without SQL", head.n)
		}
		if i < len(body) {
			for _, l := range body[i+1:] {
				rec.Expected = append(rec.Expected, l.text)
			}
		}
	case "hash-threshold":
		rec.Kind = HashThreshold
		if len(tok) < 2 {
			return rec, fmt.Errorf("line %d: hash-threshold without a value", head.n)
		}
		// atoi, as the harness: a non-number is 0 (never hash).
		fmt.Sscanf(tok[1], "%d", &rec.Threshold)
	case "halt":
		rec.Kind = Halt
	default:
		return rec, fmt.Errorf("line %d: unknown record type: '%s'", head.n, tok[0])
	}
	return rec, nil
}

func joinLines(ls []line) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String()
}
