package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
		if len(got) != 1 || got[0].reply != tc.want {
			t.Errorf("after %q: queries %+v, want one answered %q", tc.out, got, tc.want)
		}
	}
	// A query split over two reads is still answered once.
	if got := m.feed([]byte("\x1b[")); len(got) != 0 {
		t.Errorf("half a query answered: %+v", got)
	}
	if got := m.feed([]byte("6n")); len(got) != 1 || got[0].end != 2 {
		t.Errorf("split query: %+v", got)
	}
}

// The key-reading query is the one right after survey's size probe: the
// bytes a survey v2.3.7 Confirm writes, as nestor wrote them on a pty
// (Render, then RuneReader.ReadLine: Cursor.Size, Cursor.Location; one
// more Location when a character is inserted mid-line), and variants that
// must not count.
func TestDiscoverPTYKeyQuery(t *testing.T) {
	const (
		prompt   = "\x1b[0G\x1b[2K\x1b[1;92m? \x1b[0m\x1b[1;99mIs this the stack dirqual? \x1b[0m\x1b[37m(y/N) \x1b[0m"
		size     = "\x1b[?25l\x1b7\x1b[999;999f\x1b[6n"
		location = "\x1b8\x1b[?25h\x1b[6n"
	)
	for _, tc := range []struct {
		name string
		out  []string // one feed each
		want []bool   // readsKeys of each query, in order
	}{
		{"confirm", []string{prompt + size, location}, []bool{false, true}},
		{"one write", []string{prompt + size + location}, []bool{false, true}},
		{"query split after the probe", []string{prompt + size + "\x1b8\x1b[?25h\x1b[", "6n"}, []bool{false, true}},
		{"echoed key", []string{prompt + size, location, "n\x1b[1D\x1b[1B\x1b[0G"}, []bool{false, true}},
		{"a key inserted mid-line, then its query", []string{prompt + size, location, "no\x1b[1Dx\x1b7\x1b[0Ko\x1b8\x1b[6n"}, []bool{false, true, false}},
		{"drawn again after an invalid answer", []string{prompt + size, location, "x\x1b[1D\x1b[1B\x1b[0G\x1b[1A\x1b[0G\x1b[2K\x1b[1;31m✘ Sorry, your reply was invalid: \"x\" is not a valid answer, please try again.\x1b[0m\r\n" + prompt + size, location}, []bool{false, true, false, true}},
		{"a bare query", []string{prompt + "\x1b[6n"}, []bool{false}},
		{"text between probe and query", []string{prompt + size, "\x1b8more\x1b[6n"}, []bool{false, false}},
		{"a move short of the corner", []string{prompt + "\x1b7\x1b[10;10f\x1b[6n", location}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newScreenModel(50, 300)
			var got []bool
			for _, out := range tc.out {
				for _, q := range m.feed([]byte(out)) {
					got = append(got, q.readsKeys)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("readsKeys = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDiscoverPTYStripANSI(t *testing.T) {
	in := "? Add it? \x1b[36m(Y/n)\x1b[0m \x1b7\x1b[999;999f\x1b[6n\x1b8\x1b[?25hy\r\n"
	if got, want := stripANSI(in), "? Add it? (Y/n) y\n"; got != want {
		t.Errorf("stripANSI: %q, want %q", got, want)
	}
}

// The driver against real survey prompts (the built binary, no cluster):
// stack select on a prod stack without kubeconfig: asks to add it, then to
// fetch it. Each case runs on a plain terminal and with the program frozen
// around every cursor answer (ptyOptions.stall) — what a loaded machine can
// do between the answer and survey's read of it, here on purpose: a driver
// that types after the answer loses the keys there (survey drops bytes read
// together with a cursor report, after it). Every key must reach its prompt.
func TestDiscoverPTYDriverKeysReachThePrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the nestor binary")
	}
	bin := nestorBinary(t)
	const (
		add = "dirqual.yaml declares no kubeconfig:. Add `kubeconfig: ~/.kube/dirqual.config` to it? (Y/n)"
		// A copy of the cluster's admin credentials: default No.
		fetch = "Fetch its kubeconfig (the cluster's admin credentials) from dirqual1 over ssh now? (y/N)"
	)
	type step struct{ expect, send string }
	for _, tc := range []struct {
		name    string
		steps   []step
		code    int
		prompts int  // key-reading queries the program asks
		invalid int  // answers survey rejects ("Sorry, your reply was invalid")
		added   bool // the kubeconfig: line was written
	}{
		{"yes, an invalid answer, then no", []step{
			{add, "y\r"}, {"Added `kubeconfig: ~/.kube/dirqual.config`", ""},
			{fetch, "maybe\r"}, {`"maybe" is not a valid answer`, ""},
			{fetch, "n\r"}, {"Nothing fetched.", ""},
		}, 0, 3, 1, true},
		{"enter takes the default yes, ctrl-c at the second", []step{
			{add, "\r"}, {"Added `kubeconfig: ~/.kube/dirqual.config`", ""},
			{fetch, "\x03"},
		}, 130, 2, 0, true},
		{"no", []step{{add, "N\r"}, {"Left ", ""}}, 0, 1, 0, false},
		{"enter takes the default no at the fetch", []step{
			{add, "y\r"}, {"Added `kubeconfig: ~/.kube/dirqual.config`", ""},
			{fetch, "\r"}, {"Nothing fetched.", ""},
		}, 0, 2, 0, true},
	} {
		for _, stall := range []time.Duration{0, 300 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/stall %v", tc.name, stall), func(t *testing.T) {
				root := t.TempDir()
				home, stacks := filepath.Join(root, "home"), filepath.Join(root, "stacks")
				for _, d := range []string{home, stacks} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				topo := filepath.Join(stacks, "dirqual.yaml")
				orig := dirqualTopology(topoOptions{endpoint: "https://10.67.2.11:6443", cpAddress: "10.67.2.11"})
				writeFile(t, topo, orig, 0o644)
				env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8", "NESTOR_STACKS=" + stacks}

				p := startPTYWith(t, ptyOptions{stall: stall}, bin, env, "stack", "select", "dirqual")
				for _, s := range tc.steps {
					p.expect(s.expect, promptWait)
					if s.send != "" {
						p.send(s.send)
					}
				}
				if code := p.wait(); code != tc.code {
					t.Errorf("exit %d, want %d; output:\n%s", code, tc.code, p.output())
				}
				if n := p.keyQueryCount(); n != tc.prompts {
					t.Errorf("%d prompts asked for keys, want %d; output:\n%s", n, tc.prompts, p.output())
				}
				if got := readFile(t, topo); tc.added {
					assertOneLineAdded(t, orig, got, "kubeconfig: ~/.kube/dirqual.config\n")
				} else if got != orig {
					t.Errorf("the topology changed after No:\n%s", got)
				}
				if n := strings.Count(p.output(), "Sorry, your reply was invalid"); n != tc.invalid {
					t.Errorf("%d answers rejected, want %d (keys misread); output:\n%s", n, tc.invalid, p.output())
				}
			})
		}
	}
}
