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
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
