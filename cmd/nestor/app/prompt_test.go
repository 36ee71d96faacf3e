package app

import (
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
)

// TestExportedKubeconfigOfAnotherServerInATerminal: in a terminal, a
// KUBECONFIG exported for another server than the stack's endpoint: is
// shown as a WARNING line — highlighted when stderr may carry colour —
// and the operator asked whether to contact it before anything is
// dialled; told yes, when that server does not answer, the error names
// where the kubeconfig came from and that its server is not the declared
// endpoint.
func TestExportedKubeconfigOfAnotherServerInATerminal(t *testing.T) {
	for _, c := range []struct {
		term   string
		colour bool
	}{{"xterm-256color", true}, {"dumb", false}} {
		w := newGoldenWorld(t)
		env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks, "TERM": c.term,
			"KUBECONFIG": filepath.Join(w.home, ".kube", "lab.config")}
		// The mismatch is asked about before any request (answered yes
		// here: the target then does not answer).
		a, out, errOut := testApp(t, env, true, &scriptedPrompter{t: t, answers: []scripted{
			{contains: "is not the endpoint of stack lab. Send it the requests that show its version and nodes?", yes: true, def: "no"},
		}})
		code := Run(a, []string{"preview", "lab", "--timeout", "2s"})
		stderr := errOut.String()
		warn, fail := strings.Index(stderr, "endpoint MISMATCH: "), strings.Index(stderr, "Error: cannot read the target")
		if code != ExitError || warn < 0 || fail < 0 || warn > fail || out.Len() > 0 {
			t.Fatalf("TERM=%s: exit %d; the mismatch must come first, then the error:\n%s", c.term, code, stderr)
		}
		for _, want := range []string{"from KUBECONFIG in the environment", "that is not the stack's API server: " + filepath.Join(w.stacks, "lab.yaml") + " declares endpoint: https://192.0.2.10:6443"} {
			if !strings.Contains(stderr[fail:], want) {
				t.Errorf("TERM=%s: the error does not say %q:\n%s", c.term, want, stderr)
			}
		}
		if got := strings.Contains(stderr, "\x1b[1m\x1b[31mWARNING"); got != c.colour {
			t.Errorf("TERM=%s: WARNING highlighted %t, want %t:\n%q", c.term, got, c.colour, stderr)
		}
		if !c.colour && strings.Contains(stderr, "\x1b") {
			t.Errorf("TERM=dumb: an escape on stderr:\n%q", stderr)
		}
	}
	var _ action.Prompter = &scriptedPrompter{}
}

// A target whose endpoint is not the stack's is warned about and asked
// about before any request: No sends nothing and says so.
func TestMismatchDeclinedSendsNothing(t *testing.T) {
	w := newGoldenWorld(t)
	env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks, "TERM": "dumb",
		"KUBECONFIG": filepath.Join(w.home, ".kube", "lab.config")}
	pr := &scriptedPrompter{t: t, answers: []scripted{
		{contains: "is not the endpoint of stack lab", yes: false, def: "no"},
	}}
	a, out, errOut := testApp(t, env, true, pr)
	code := Run(a, []string{"preview", "lab", "--timeout", "2s"})
	stderr := errOut.String()
	if code != ExitError || out.Len() > 0 || !strings.Contains(stderr, "endpoint MISMATCH: ") ||
		!strings.Contains(stderr, "Not confirmed: nothing was sent to ") || strings.Contains(stderr, "cannot read the target") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if len(pr.answers) != 0 {
		t.Fatalf("questions not asked: %+v", pr.answers)
	}
}
