package probes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sanitize makes text that came from outside nestor (an API server's status
// message, limactl's stderr) safe to print on a terminal: every control
// character (C0, DEL and C1: ESC, BEL, CR, backspace, the 8-bit CSI…) is
// dropped, except newline and tab, and bytes that are not UTF-8 become
// U+FFFD. Without it a server could clear the screen or rewrite the lines
// above ACTUAL with an escape sequence in a reason. Printable text is kept
// as is.
func sanitize(s string) string {
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
