package probes

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes text that came from outside nestor (an API server's status
// message, limactl's stderr) safe to print on a terminal: every control
// character (C0, DEL and C1: ESC, BEL, CR, backspace, the 8-bit CSI…) is
// dropped, except newline and tab, and bytes that are not UTF-8 become
// U+FFFD. Without it a server could clear the screen or rewrite the lines
// above ACTUAL with an escape sequence in a reason. Printable text is kept
// as is.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SanitizeName makes a name that came from outside nestor (a Lima instance,
// a node, a pool, a version, a status) safe to print while keeping it a
// name: where sanitize drops a control character, sanitizeName writes it as
// a Go escape (DEL becomes \x7f, a newline \n), and so are the invisible
// format characters (Unicode category Cf: zero-width spaces, bidirectional
// overrides, which could make one name look like another), the line and
// paragraph separators U+2028 and U+2029, and every byte that is not UTF-8
// (\xff). A name made only of such characters stays non-empty. A backslash
// is kept as is, so a name that spells an escape (a\x7f) prints as the
// name holding that character does: printable names, the only ones a
// declared name can equal, are returned unchanged.
func SanitizeName(s string) string {
	if printableASCII(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			q := strconv.QuoteRune(r) // '\x7f', '\n', '\u200b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// printableASCII reports whether s holds only U+0020–U+007E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
