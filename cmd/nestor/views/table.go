package views

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// table is the one home of every human table nestor prints (preview's
// DESIRED, ACTUAL, NODES, layers and pools, discover's sections, fleet,
// stack list): rows of cells laid out in columns, each cell padded to its
// column's widest cell by visible width — what a terminal shows, not bytes
// nor runes: colour escapes (ECMA-48 CSI and OSC sequences) count 0, East
// Asian wide and fullwidth runes 2 (Unicode UAX #11 through
// golang.org/x/text/width), combining marks and format characters 0.
// text/tabwriter counts the escapes of a coloured cell as width, so a
// coloured or cordoned row pushed its neighbours.
//
// The last cell of a row is never padded and does not widen its column
// (a trailing free-text cell, a reason, stays as long as it is); a row
// with fewer cells simply ends early. Columns are separated by gap spaces
// and every row starts with indent.
type table struct {
	indent string
	gap    int
	rows   [][]string
}

// newTable returns an empty table whose rows start with indent, columns two
// spaces apart.
func newTable(indent string) *table { return &table{indent: indent, gap: 2} }

// row adds a row of cells.
func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the rows, one line each, and empties the table. Errors:
// w's.
func (t *table) write(w io.Writer) error {
	widths := []int{}
	for _, r := range t.rows {
		for i, c := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.WriteString(t.indent)
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-visibleWidth(c)+t.gap))
			}
		}
		// A row whose last cells are empty leaves no trailing blanks.
		line := strings.TrimRight(b.String(), " ")
		b.Reset()
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	t.rows = nil
	return nil
}

// visibleWidth is how many terminal columns s takes (see table): escape
// sequences 0, wide and fullwidth runes 2, combining marks, format and
// control characters 0, every other rune 1.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n += runeWidth(r)
	}
	return n
}

// escapeLen is the length in bytes of the escape sequence at the start of
// s (which starts with ESC): a CSI sequence (ESC [ parameters, final byte
// 0x40–0x7E), an OSC sequence (ESC ] … ended by BEL or ESC \), or ESC and
// the one byte after it (ECMA-48 § 5.3); an unfinished sequence runs to
// the end of s.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
		return len(s)
	case ']':
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	return 2
}

// runeWidth is the terminal width of r (see visibleWidth).
func runeWidth(r rune) int {
	switch {
	case r == utf8.RuneError:
		return 1
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), unicode.Is(unicode.Cf, r), unicode.IsControl(r):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
