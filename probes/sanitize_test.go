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
		if got := sanitizeName(tc.in); got != tc.want {
			t.Errorf("sanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if sanitizeName("a\x7f") == sanitizeName("a\x1b") {
		t.Errorf("two names escape to one")
	}
}

// TestDecodeLimaListUnprintableTexts: an instance whose name or status is
// made only of unprintable characters keeps them, escaped: it is neither
// nameless nor without a status, and nothing unprintable is kept raw.
func TestDecodeLimaListUnprintableTexts(t *testing.T) {
	l, err := decodeLimaList([]byte(`{"name":"\u007f"}` + "\n" + `{"name":"\u001b[2J","status":"\u0007","dir":"/l/\u0000"}` + "\n" + `{"name":"vm\u202e","status":"Running"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.notVMs) != 1 || l.notVMs[0].Name != `\x7f` {
		t.Errorf("entries that are not VMs = %+v, want one named \\x7f", l.notVMs)
	}
	if len(l.vms) != 2 || l.vms[0].Name != `\x1b[2J` || l.vms[0].Status != `\a` || l.vms[0].Dir != `/l/\x00` || l.vms[1].Name != `vm\u202e` {
		t.Errorf("VMs = %+v", l.vms)
	}
}
