package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// exampleArgs turns one line of a command's Example into nestor's
// arguments: the comment, a redirection and a pipe cut off, `eval "$(…)"`
// unwrapped; ok false for a line that runs no nestor.
func exampleArgs(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, "  #"); i >= 0 {
		line = line[:i]
	}
	if strings.HasPrefix(line, `eval "$(`) {
		line = strings.TrimSuffix(strings.TrimPrefix(line, `eval "$(`), `)"`)
	}
	for _, cut := range []string{" |", " >"} {
		if i := strings.Index(line, cut); i >= 0 {
			line = line[:i]
		}
	}
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "nestor" {
		return nil, false
	}
	return f[1:], true
}

// usageWords are the words of an error in how nestor was called, not in
// what it read: an example must never meet them.
var usageWords = []string{"unknown flag", "unknown shorthand", "unknown command", "accepts ", "invalid argument", "See 'nestor", "name two stacks", "needs a command", "flag needs an argument"}

// TestHelpExamplesRun runs every example of every command's --help
// through Run, in a world of stacks (the shipped examples, dirqual
// active, the repository's stacks/examples/ where an example names it),
// with limactl answering from a recording and ssh refused: no example
// may be a usage error, and each reaches its work — a report, a document,
// or the pipeline's own words about the stack (no target, a node to fetch
// from). Examples that need a cluster meet none here: they are checked to
// parse and to reach the pipeline.
func TestHelpExamplesRun(t *testing.T) {
	w := newGoldenWorld(t)
	if err := os.Symlink("dirqual.yaml", filepath.Join(w.stacks, ".active")); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	a0, _, _ := testApp(t, nil, false, nil)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		for _, line := range strings.Split(c.Example, "\n") {
			args, ok := exampleArgs(line)
			if !ok {
				continue
			}
			for i, arg := range args {
				if strings.HasPrefix(arg, "stacks/examples") {
					args[i] = filepath.Join(repo, arg)
				}
			}
			n++
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
				a.Run = func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
					if name == "limactl" {
						return limactl("bench-node2-stopped.jsonl")(ctx, name, args...)
					}
					return nil, nil, errors.New(name + " is not run by this test")
				}
				code := Run(a, append(args, "--timeout", "2s"))
				all := out.String() + errOut.String()
				t.Logf("exit %d\n%s", code, all)
				for _, word := range usageWords {
					if strings.Contains(all, word) {
						t.Errorf("exit %d, a usage error (%q):\n%s", code, word, all)
					}
				}
				if strings.TrimSpace(all) == "" {
					t.Errorf("exit %d and nothing said", code)
				}
				if code != ExitOK && code != ExitChanges && code != ExitError {
					t.Errorf("exit %d:\n%s", code, all)
				}
			})
		}
	}
	walk(newRoot(a0))
	if n < 15 {
		t.Errorf("%d examples run; the commands' helps have more", n)
	}
}
