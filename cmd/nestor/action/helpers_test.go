package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/stacks"
)

// scriptedPrompter answers questions from a script and fails the test on a
// question it does not expect.
type scriptedPrompter struct {
	t       *testing.T
	answers []scripted
}

type scripted struct {
	contains string
	yes      bool
	err      error
}

func (p *scriptedPrompter) Confirm(message string, _ bool) (bool, error) {
	p.t.Helper()
	if len(p.answers) == 0 {
		p.t.Fatalf("unexpected question %q", message)
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	if !strings.Contains(message, a.contains) {
		p.t.Fatalf("question %q, want one containing %q", message, a.contains)
	}
	return a.yes, a.err
}

// testConfig returns a Config writing its log to a buffer, with the given
// environment, interactive when tty (then pr answers), no external program
// allowed (Exec fails the test), and the stacks folder ./stacks.
func testConfig(t *testing.T, env map[string]string, tty bool, pr Prompter) (Config, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, log bytes.Buffer
	c := Config{
		Log: func(m string) { log.WriteString(m + "\n") },
		Env: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		Home:        env["HOME"],
		Stacks:      stacks.Store{Dir: stacks.DefaultDir},
		Timeout:     10 * time.Second,
		UserAgent:   "nestor/test",
		Interactive: tty,
		Prompter:    pr,
		Exec: func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
			t.Fatalf("unexpected external command %s %v", name, args)
			return nil, nil, nil
		},
	}
	if !tty {
		c = c.NoPrompt("test without a terminal")
	}
	return c, &out, &log
}

func withKubeconfig(c Config, kc string) Config {
	c.Kubeconfig = kc
	return c
}

func withTimeout(c Config, d time.Duration) Config {
	c.Timeout = d
	return c
}

func writeStack(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

const prodNoKubeconfig = `# the lab cluster
name: lab
target_kind: prod

# comment kept
nodes:
  - {name: lab1, role: control-plane, address: 10.0.0.1}
layers:
  - cilium
`
