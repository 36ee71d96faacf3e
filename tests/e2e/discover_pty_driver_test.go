package e2e

import "testing"

// The screen model answers cursor queries as a terminal would, including
// survey's size probe (move to 999;999, then ask).
func TestDiscoverPTYScreenModel(t *testing.T) {
	m := newScreenModel(50, 300)
	for _, tc := range []struct{ out, want string }{
		{"? Add it? (Y/n) \x1b[6n", "\x1b[1;17R"},
		{"\x1b7\x1b[999B\x1b[999C\x1b[6n", "\x1b[50;300R"},
		{"\x1b8\x1b[6n", "\x1b[1;17R"},
		{"y\r\n\x1b[2Kdone é\x1b[6n", "\x1b[2;7R"},
		{"\x1b[1A\x1b[5G\x1b[6n", "\x1b[1;5R"},
		{"\x1b[3;9H\x1b[?25l\x1b[0m\x1b[6n", "\x1b[3;9R"},
	} {
		got := m.feed([]byte(tc.out))
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("after %q: replies %q, want %q", tc.out, got, tc.want)
		}
	}
	// A query split over two reads is still answered once.
	if got := m.feed([]byte("\x1b[")); len(got) != 0 {
		t.Errorf("half a query answered: %q", got)
	}
	if got := m.feed([]byte("6n")); len(got) != 1 {
		t.Errorf("split query: %q", got)
	}
}

func TestDiscoverPTYStripANSI(t *testing.T) {
	in := "? Add it? \x1b[36m(Y/n)\x1b[0m \x1b7\x1b[999;999f\x1b[6n\x1b8\x1b[?25hy\r\n"
	if got, want := stripANSI(in), "? Add it? (Y/n) y\n"; got != want {
		t.Errorf("stripANSI: %q, want %q", got, want)
	}
}
