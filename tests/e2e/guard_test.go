package e2e

// End-to-end tests of the target guard of a prod stack, interactive through a
// pseudo-terminal (survey's real Confirm prompt) and non-interactive
// (--no-input, NESTOR_NO_INPUT, -o json, no terminal).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// promptWait bounds each expected piece of text in the pty tests.
const promptWait = 30 * time.Second

// A pty answers y: the prompt shows the endpoint, the rule that chose the
// kubeconfig and dirqual1..4; the preview then runs.
func TestGuardInteractiveYes(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w, kc := dirqualWorld(t, c, harness.IdentityReadOnly)
	stack := filepath.Join(w.Stacks, "dirqual.yaml")

	r := w.runPTY(nil, func(p *ptyProc) {
		p.expect("Target of stack dirqual (prod):", promptWait)
		p.expect("endpoint    "+c.URL, promptWait)
		p.expect("matches     endpoint: "+c.URL+" declared in "+stack, promptWait)
		p.expect("kubeconfig  "+kc+" (from kubeconfig: in "+stack+")", promptWait)
		p.expect("nodes       4 seen, 4 Ready: dirqual1, dirqual2, dirqual3, dirqual4", promptWait)
		answerPrompt(t, p, "? Is this the stack dirqual? (y/N)", "y\r")
		p.expect("PLAN", promptWait)
		p.expect("In sync.", promptWait)
	}, "preview", "--stack", "dirqual", "--stacks", w.Stacks)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	if i, j := strings.Index(r.output, "Is this the stack dirqual?"), strings.Index(r.output, "DESIRED"); i < 0 || j < i {
		t.Errorf("the report must come after the confirmation (prompt at %d, DESIRED at %d)", i, j)
	}
	// The preview ran after the yes: it read beyond the target check.
	read := strings.Join(auditPaths(r.audit[0]), " ")
	wantContains(t, "requests after yes", read, "/version", "/api/v1/nodes", "customresourcedefinitions", "storageclasses")
}

// A pty answers n: exit 1, and nestor read only what the confirmation needed
// (version and nodes), nothing of namespaces, CRDs or workloads. Ctrl-C ends
// it too, with 130.
func TestGuardInteractiveNo(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w, _ := dirqualWorld(t, c, harness.IdentityReadOnly)

	for _, tc := range []struct {
		name, key, says string
		code            int
	}{
		{"answer n", "n\r", "Not confirmed", 1},
		{"enter takes the default No", "\r", "Not confirmed", 1},
		{"ctrl-c", "\x03", "Interrupted", 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.runPTY(nil, func(p *ptyProc) {
				p.expect("nodes       4 seen, 4 Ready: dirqual1, dirqual2, dirqual3, dirqual4", promptWait)
				answerPrompt(t, p, "? Is this the stack dirqual? (y/N)", tc.key)
				p.expect(tc.says, promptWait)
			}, "preview", "--stack", "dirqual", "--stacks", w.Stacks)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d", r.code, tc.code)
			}
			wantNotContains(t, "after No", r.output, "DESIRED", "ACTUAL", "PLAN")
			wantOnlyTargetCheck(t, r.audit[0])
		})
	}
}

// The phantom target: KUBECONFIG points at a second apiserver (the bench
// fixture) while the topology declares the dirqual endpoint. Interactive: the
// mismatch is shown before the question. --no-input (and NESTOR_NO_INPUT, and
// -o json): exit 1 naming both endpoints, and nothing at all is sent to
// either apiserver.
func TestGuardPhantomTarget(t *testing.T) {
	prod := sharedFixtureCluster(t, healthyFixture)
	phantom := sharedFixtureCluster(t, benchFixture)
	w := newWorld(t, phantom, prod)
	stack := w.dirqualStack(prod.URL, "~/.kube/dirqual.config")
	w.kubeconfig(prod, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, "")
	stale := w.kubeconfig(phantom, w.path("kc", "bench.config"), harness.IdentityReadOnly, "")
	exported := []string{"KUBECONFIG=" + stale}
	args := []string{"preview", "--stack", "dirqual", "--stacks", w.Stacks}

	// Interactive: the comparison is offline, so the mismatch is shown and
	// asked about before any request — the other server is sent nothing
	// unless the operator says so (default No; Ctrl-C too sends nothing).
	contact := "? " + phantom.URL + " is not the endpoint of stack dirqual. Send it the requests that show its version and nodes? (y/N)"
	for _, tc := range []struct {
		name, key, says string
		code            int
	}{
		{"interactive: no at the mismatch sends nothing", "n\r", "Not confirmed: nothing was sent to " + phantom.URL, 1},
		{"interactive: enter at the mismatch takes the default No", "\r", "Not confirmed: nothing was sent to " + phantom.URL, 1},
		{"interactive: ctrl-c at the mismatch", "\x03", "Interrupted", 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.runPTY(exported, func(p *ptyProc) {
				p.expect("endpoint    "+phantom.URL, promptWait)
				p.expect("WARNING     endpoint MISMATCH: "+stack+" declares "+prod.URL, promptWait)
				p.expect("kubeconfig  "+stale+" (from KUBECONFIG in the environment)", promptWait)
				answerPrompt(t, p, contact, tc.key)
				p.expect(tc.says, promptWait)
			}, args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d", r.code, tc.code)
			}
			wantNotContains(t, "nothing read", r.output, "seen,", "Is this the stack dirqual?")
			if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
				t.Errorf("%d requests reached a server before the operator said yes: %v %v", n, r.audit[0], r.audit[1])
			}
		})
	}

	t.Run("interactive: --kubeconfig of another cluster, no sends nothing", func(t *testing.T) {
		w := w.in(t)
		r := w.runPTY(nil, func(p *ptyProc) {
			p.expect("WARNING     endpoint MISMATCH: "+stack+" declares "+prod.URL, promptWait)
			p.expect("kubeconfig  "+stale+" (from --kubeconfig on the command line)", promptWait)
			answerPrompt(t, p, contact, "n\r")
			p.expect("Not confirmed: nothing was sent to "+phantom.URL, promptWait)
		}, append(append([]string{}, args...), "--kubeconfig", stale)...)
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
		if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
			t.Errorf("%d requests reached a server before the operator said yes: %v %v", n, r.audit[0], r.audit[1])
		}
	})

	t.Run("interactive: yes at the mismatch reads the target check, then asks", func(t *testing.T) {
		w := w.in(t)
		r := w.runPTY(exported, func(p *ptyProc) {
			p.expect("WARNING     endpoint MISMATCH: "+stack+" declares "+prod.URL, promptWait)
			answerPrompt(t, p, contact, "y\r")
			p.expect("nodes       2 seen, 2 Ready: lima-node1, lima-node2", promptWait)
			answerPrompt(t, p, "? Is this the stack dirqual? (y/N)", "n\r")
			p.expect("Not confirmed", promptWait)
		}, args...)
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
		wantOnlyTargetCheck(t, r.audit[0])
		if len(r.audit[1]) != 0 {
			t.Errorf("the declared apiserver was read although KUBECONFIG names another: %v", r.audit[1])
		}
	})

	for _, tc := range []struct {
		name  string
		extra []string
		flags []string
	}{
		{"--no-input", nil, []string{"--no-input"}},
		{"NESTOR_NO_INPUT=1", []string{"NESTOR_NO_INPUT=1"}, nil},
		{"-o json", nil, []string{"-o", "json"}},
		{"no terminal", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.run(append(append([]string{}, exported...), tc.extra...), append(append([]string{}, args...), tc.flags...)...)
			wantCode(t, r, 1)
			wantContains(t, "refusal", r.stderr, "refusing: the target is not stack dirqual", phantom.URL, prod.URL, stale, "KUBECONFIG")
			wantNoReport(t, r, "refused")
			if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
				t.Errorf("nestor sent %d requests although the endpoint check needs no network: %v %v", n, r.audit[0], r.audit[1])
			}
		})
	}

	t.Run("NESTOR_NO_INPUT on a terminal never prompts", func(t *testing.T) {
		w := w.in(t)
		r := w.runPTY(append(append([]string{}, exported...), "NESTOR_NO_INPUT=1"), func(p *ptyProc) {
			p.expect("refusing: the target is not stack dirqual", promptWait)
		}, args...)
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
		wantNotContains(t, "NESTOR_NO_INPUT=1", r.output, "Is this the stack")
		if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
			t.Errorf("nestor sent %d requests: %v %v", n, r.audit[0], r.audit[1])
		}
	})
}

// --no-input with the endpoint written differently (scheme case, trailing
// slash) passes, on either side; a prod stack without endpoint: is refused
// with the line to add, before any request.
func TestGuardEndpointNormalisation(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	odd := fmt.Sprintf("HTTPS://127.0.0.1:%d/", c.Port)

	for _, tc := range []struct{ name, declared, server string }{
		{"topology writes " + odd, odd, c.URL},
		{"kubeconfig writes " + odd, c.URL, odd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, c)
			w.dirqualStack(tc.declared, "~/.kube/dirqual.config")
			w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, tc.server)
			r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "--detailed-exitcode", "-o", "json")
			wantCode(t, r, 0)
			doc := decodePreview(t, r)
			if doc.Target == nil || doc.Target.EndpointMatches == nil || !*doc.Target.EndpointMatches ||
				doc.Target.Endpoint != tc.server || doc.Target.DeclaredEndpoint != tc.declared {
				t.Errorf("target = %+v, want endpoint %s matching declared %s", doc.Target, tc.server, tc.declared)
			}
			if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
				t.Errorf("nodes = %+v, want the 4 dirqual nodes", doc.Actual.Nodes)
			}
		})
	}

	t.Run("no endpoint: declared", func(t *testing.T) {
		w := newWorld(t, c)
		stack := w.dirqualStack("", "~/.kube/dirqual.config")
		w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, "")
		for _, flags := range [][]string{{"--no-input"}, {"-o", "json"}} {
			r := w.run(nil, append([]string{"preview", "--stack", "dirqual", "--stacks", w.Stacks}, flags...)...)
			wantCode(t, r, 1)
			wantContains(t, "refusal", r.stderr, "declares no endpoint:", stack)
			wantLine(t, "line to add", r.stderr, `^\s+endpoint: `+quote(c.URL)+`$`)
			if len(r.audit[0]) != 0 {
				t.Errorf("requests sent although --no-input cannot check the target: %v", r.audit[0])
			}
		}
	})
}

// With no terminal and no flag (stdin /dev/null, or a pipe that stays open
// and silent) nestor behaves as --no-input and never waits.
func TestGuardNoTerminalNeverWaits(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	other := sharedFixtureCluster(t, benchFixture)
	w, _ := dirqualWorld(t, c, harness.IdentityReadOnly, other)
	args := []string{"preview", "--stack", "dirqual", "--stacks", w.Stacks}
	stale := w.kubeconfig(other, w.path("kc", "bench.config"), harness.IdentityReadOnly, "")

	// A pipe nobody writes to and nobody closes: a prompt would wait forever.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); pw.Close() })

	for _, tc := range []struct {
		name  string
		stdin *os.File
	}{{"stdin /dev/null", nil}, {"stdin an open silent pipe", pr}} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.runWith(runOpts{env: w.env(), stdin: tc.stdin}, args...)
			wantCode(t, r, 0)
			wantLine(t, "report", r.stdout, `^Plan: 0 to change, 0 undeclared, 0 unknown\. In sync\.$`)
			wantNotContains(t, "no terminal", r.stdout+r.stderr, "Is this the stack")
			if r.took > 10*time.Second {
				t.Errorf("took %v: it waited", r.took)
			}

			r = w.runWith(runOpts{env: w.env("KUBECONFIG=" + stale), stdin: tc.stdin}, args...)
			wantCode(t, r, 1)
			wantContains(t, "refusal", r.stderr, "refusing: the target is not stack dirqual", other.URL, c.URL)
			if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
				t.Errorf("nestor sent %d requests to a refused target: %v %v", n, r.audit[0], r.audit[1])
			}
			if r.took > 10*time.Second {
				t.Errorf("took %v: it waited", r.took)
			}
		})
	}
}

// The confirmation names the Ready nodes after "N Ready:" and the NotReady
// one on its own line (the demo cluster: demo3 NotReady); and the prompt
// follows the colour rule of every output (App.colorFor): TERM=dumb draws
// it plain, as NO_COLOR does, and only a colour terminal colours it.
func TestGuardPromptNodesAndColour(t *testing.T) {
	c := sharedFixtureCluster(t, "demo.yaml")
	w, _ := dirqualWorld(t, c, harness.IdentityReadOnly)
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	for _, tc := range []struct {
		name   string
		env    []string
		colour bool
	}{
		{"TERM=dumb", []string{"NO_COLOR=", "TERM=dumb"}, false},
		{"NO_COLOR=1", []string{"NO_COLOR=1"}, false},
		{"a colour terminal", []string{"NO_COLOR="}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			var raw string
			r := w.runPTY(tc.env, func(p *ptyProc) {
				p.expect("nodes       4 seen, 3 Ready: demo1, demo2, demo4\n", promptWait)
				p.expect("not Ready   demo3 (", promptWait)
				answerPrompt(t, p, "? Is this the stack dirqual? (y/N)", "n\r")
				p.expect("Not confirmed", promptWait)
				raw = p.rawOutput()
			}, "preview", "--stack", "dirqual", "--stacks", w.Stacks)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			i := strings.Index(raw, "Is this the stack dirqual?")
			if i < 0 {
				t.Fatalf("no prompt in:\n%q", raw)
			}
			prompt := raw[strings.LastIndex(raw[:i], "\n")+1 : i]
			if got := sgr.MatchString(prompt); got != tc.colour {
				t.Errorf("the prompt carries colour: %v, want %v: %q", got, tc.colour, prompt)
			}
			if !tc.colour && sgr.MatchString(raw) {
				t.Errorf("colour in a run that may carry none: %q", sgr.FindAllString(raw, 5))
			}
		})
	}
}
