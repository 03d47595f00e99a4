package slt

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// SkipList names records whose expected result follows SQLite semantics
// that Doris/MySQL do not share ("[semantics] why"), or that use a statement
// family Doris does not have ("[unsupported] why"). Each entry must give its
// category and reason; pass rates count neither. Lines:
//
//	# comment
//	FILEGLOB:LINE REASON        one record (its first line, after conditions)
//	FILEGLOB:FROM-TO REASON     records starting in a line range
//	FILEGLOB:* REASON           every record of the matching files
//	sql:REGEXP REASON           every record whose SQL matches (Go RE2, case-insensitive)
//	FILEGLOB:sql:REGEXP REASON  the same, in the matching files only (records that
//	                            use a table whose unsupported CREATE was skipped)
//
// FILEGLOB is matched (path.Match) against the file's path relative to the
// corpus root, with '/' separators.
type SkipList struct {
	entries []skipEntry
	// Hits counts the records each entry skipped, by entry line.
	Hits map[int]int
}

type skipEntry struct {
	line     int
	glob     string
	from, to int // 0,0 for every line
	re       *regexp.Regexp
	reason   string
}

// LoadSkipList reads a skip list file; a missing path is an empty list.
func LoadSkipList(p string) (*SkipList, error) {
	s := &SkipList{Hits: map[int]int{}}
	if p == "" {
		return s, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		key, reason, _ := strings.Cut(t, " ")
		reason = strings.TrimSpace(reason)
		if !strings.HasPrefix(reason, "[semantics] ") && !strings.HasPrefix(reason, "[unsupported] ") {
			return nil, fmt.Errorf("%s:%d: skip entry %q: the reason must start with [semantics] or [unsupported] and say why", p, n, key)
		}
		e := skipEntry{line: n, reason: reason}
		glob, re, scoped := strings.Cut(key, ":sql:")
		if !scoped {
			glob = ""
			re, scoped = strings.CutPrefix(key, "sql:")
		}
		if scoped {
			// The pattern may contain spaces written as \s; the key ends
			// at the first space.
			if _, err := path.Match(glob, ""); err != nil {
				return nil, fmt.Errorf("%s:%d: bad glob %q: %v", p, n, glob, err)
			}
			e.glob = glob
			rx, err := regexp.Compile("(?is)" + re)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", p, n, err)
			}
			e.re = rx
		} else {
			i := strings.LastIndexByte(key, ':')
			if i < 0 {
				return nil, fmt.Errorf("%s:%d: want FILEGLOB:LINE, FILEGLOB:FROM-TO, FILEGLOB:* or sql:REGEXP, got %q", p, n, key)
			}
			e.glob = key[:i]
			if _, err := path.Match(e.glob, ""); err != nil {
				return nil, fmt.Errorf("%s:%d: bad glob %q: %v", p, n, e.glob, err)
			}
			if ls := key[i+1:]; ls != "*" {
				a, b, rng := strings.Cut(ls, "-")
				from, err1 := strconv.Atoi(a)
				to := from
				var err2 error
				if rng {
					to, err2 = strconv.Atoi(b)
				}
				if err1 != nil || err2 != nil || from <= 0 || to < from {
					return nil, fmt.Errorf("%s:%d: bad line %q", p, n, ls)
				}
				e.from, e.to = from, to
			}
		}
		s.entries = append(s.entries, e)
	}
	return s, sc.Err()
}

// Match returns the reason a record is skipped, or "".
func (s *SkipList) Match(rel string, rec *Record) string {
	if s == nil {
		return ""
	}
	for _, e := range s.entries {
		if e.re != nil {
			if !e.re.MatchString(rec.SQL) {
				continue
			}
			if ok, _ := path.Match(e.glob, rel); e.glob != "" && !ok {
				continue
			}
		} else {
			if ok, _ := path.Match(e.glob, rel); !ok {
				continue
			}
			if e.from != 0 && (rec.Line < e.from || rec.Line > e.to) {
				continue
			}
		}
		s.Hits[e.line]++
		return e.reason
	}
	return ""
}
