package probes

import "testing"

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text: 3/3 available":            "plain text: 3/3 available",
		"keeps\nnewline and\ttab":              "keeps\nnewline and\ttab",
		"\x1b[31mred\x1b[0m":                   "[31mred[0m",
		"bell\x07 bs\x08 cr\r del\x7f nul\x00": "bell bs cr del nul",
		"c1 csi \u009b2J and nel \u0085":       "c1 csi 2J and nel ",
		"bad utf8 \xff\xfe end":                "bad utf8 \uFFFD end",
		"unicode ok: 日本 → ✓":                   "unicode ok: 日本 → ✓",
		"":                                     "",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSanitizeName: unprintable characters of a name are escaped, never
// dropped: no name becomes empty, two names stay two, nothing that moves
// the cursor or reorders text reaches the terminal, printable text is kept.
func TestSanitizeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"lima-node1", "lima-node1"},
		{"é-ü 😀", "é-ü 😀"},
		{"\x7f", `\x7f`},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"\u0085", `\u0085`},
		{"node\u202e1", `node\u202e1`}, // right-to-left override
		{"no\u200bde", `no\u200bde`},   // zero-width space
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"l\u2028p\u2029", `l\u2028p\u2029`}, // line and paragraph separators
		{`C:\lima\x`, `C:\lima\x`},           // a backslash is kept
		{"", ""},
	} {
		if got := SanitizeName(tc.in); got != tc.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if SanitizeName("a\x7f") == SanitizeName("a\x1b") {
		t.Errorf("two names escape to one")
	}
}
