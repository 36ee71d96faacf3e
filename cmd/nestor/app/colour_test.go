package app

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// escapes matches the escape sequences nestor's palette writes.
var escapes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestGoldenForcedColour draws, through the real entry point with
// CLICOLOR_FORCE=1 (stdout is no terminal here), the views whose tables
// carry colour — a kapsule preview's pools, a lima preview's VMs — and the
// fleet and stack list tables, compared with
// tests/testdata/golden/colour/<command>-<case>/. Each, stripped of its
// escapes, must be exactly the same command's output without colour: the
// colour never moves a column.
func TestGoldenForcedColour(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		limactl string
		colour  bool
	}{
		{name: "preview-kapsule", args: []string{"preview", "--stack", "lyneko-apps", "--as-of", "2026-11-30"}, colour: true},
		{name: "preview-lima", args: []string{"preview", "--stack", "bench", "--as-of", "2026-11-30"}, limactl: "bench-node2-stopped.jsonl", colour: true},
		{name: "fleet", args: []string{"fleet", "--as-of", "2026-11-30"}, limactl: "bench-node2-stopped.jsonl"},
		{name: "stack-list", args: []string{"stack", "list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, s := viewsWorld(t)
			run := func(extra map[string]string) (string, string, int) {
				env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks, "SCW_ACCESS_KEY": goldenAccessKey, "SCW_SECRET_KEY": goldenSecretKey}
				for k, v := range extra {
					env[k] = v
				}
				a, out, errOut := testApp(t, env, false, nil)
				a.Run = limactl(c.limactl)
				code := Run(a, append(c.args, "--timeout", "2s"))
				norm := func(s0 string) string {
					s0 = strings.ReplaceAll(s0, w.root, "$ROOT")
					s0 = strings.ReplaceAll(s0, s.URL, "$SCW")
					s0 = strings.ReplaceAll(s0, w.closedURL, "$CLOSED")
					return strings.ReplaceAll(s0, strings.TrimPrefix(w.closedURL, "https://"), "$CLOSEDADDR")
				}
				return norm(out.String()), norm(errOut.String()), code
			}
			on, stderr, code := run(map[string]string{"CLICOLOR_FORCE": "1"})
			off, _, _ := run(nil)
			if c.colour != strings.Contains(on, "\x1b[") {
				t.Errorf("colour in the forced view: %t, want %t:\n%s", !c.colour, c.colour, on)
			}
			if got := escapes.ReplaceAllString(on, ""); got != off {
				t.Errorf("the coloured view, stripped of its escapes, differs from the plain view:\n%s\nplain:\n%s", got, off)
			}
			compareGolden(t, filepath.Join(goldenRoot, "colour", c.name), map[string]string{"stdout": on, "stderr": stderr, "code": fmt.Sprintf("%d\n", code)})
		})
	}
}

// TestColourSettings: colour on stdout follows the conventions — a
// terminal, or CLICOLOR_FORCE / FORCE_COLOR set to a true value; never with
// NO_COLOR set or TERM=dumb, forced or not.
func TestColourSettings(t *testing.T) {
	cases := []struct {
		env  map[string]string
		tty  bool
		want bool
	}{
		{nil, false, false},
		{nil, true, true},
		{map[string]string{"TERM": "xterm-256color"}, true, true},
		{map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{map[string]string{"FORCE_COLOR": "1"}, false, true},
		{map[string]string{"FORCE_COLOR": "true"}, false, true},
		{map[string]string{"FORCE_COLOR": "0"}, false, false},
		{map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{map[string]string{"CLICOLOR_FORCE": ""}, false, false},
		{map[string]string{"NO_COLOR": "1"}, true, false},
		{map[string]string{"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, false, false},
		{map[string]string{"NO_COLOR": ""}, true, true},
		{map[string]string{"TERM": "dumb"}, true, false},
		{map[string]string{"TERM": "dumb", "FORCE_COLOR": "1"}, false, false},
	}
	for _, c := range cases {
		a, _, _ := testApp(t, c.env, false, nil)
		if got := a.colorFor(c.tty); got != c.want {
			t.Errorf("colorFor(tty %t) with %v = %t, want %t", c.tty, c.env, got, c.want)
		}
	}
}
