package topology

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// Error is one problem found in a topology file: where it is (File, 1-based
// Line and Column, 0 when unknown), which field (a path such as
// "nodes[1].name", "" for the whole file), what is wrong and how to fix it.
type Error struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
	Fix    string
	// Err is the system's error when the file could not be read at all
	// (an *fs.PathError), nil for a problem of its content.
	Err error
}

// Unwrap returns the system's error of a file that could not be read.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem as "FILE:LINE:COL: FIELD: MSG (FIX)"; the parts
// that are unknown or empty (line, column, field, fix) are left out.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteString(":" + strconv.Itoa(e.Column))
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (" + e.Fix + ")")
	}
	return b.String()
}

// Errors is every problem found in one file, sorted by position. Parse and
// Load always return validation problems as Errors (never a bare *Error), so
// callers can list them all; errors.As(err, &e) with e a *Error finds the
// first through Unwrap.
type Errors []*Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems as a []error, for errors.Is / errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

func (es Errors) sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Column < es[j].Column
	})
}

// AsErrors returns the problems err carries: the list of an Errors, a single
// *Error as a list of one, or nil when err is neither.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return Errors{e}
	}
	return nil
}

// levenshtein is the edit distance between a and b (bytes; names are ASCII).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// closest returns the candidates within a small edit distance of s (at most
// 2, or a third of its length for long names), nearest first, and any
// candidate that contains s or is contained in it.
func closest(s string, candidates []string) []string {
	type c struct {
		name string
		d    int
	}
	var found []c
	limit := max(2, len(s)/3)
	for _, cand := range candidates {
		d := levenshtein(s, cand)
		if d <= limit || (len(s) >= 3 && (strings.Contains(cand, s) || strings.Contains(s, cand))) {
			found = append(found, c{cand, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}
