package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
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
	// def, when set ("yes" or "no"), is the default the question must
	// offer.
	def string
}

func (p *scriptedPrompter) Confirm(message string, def bool) (bool, error) {
	p.t.Helper()
	if len(p.answers) == 0 {
		p.t.Fatalf("unexpected question %q", message)
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	if !strings.Contains(message, a.contains) {
		p.t.Fatalf("question %q, want one containing %q", message, a.contains)
	}
	if a.def != "" && (a.def == "yes") != def {
		p.t.Errorf("question %q offers the default %v, want %s", message, def, a.def)
	}
	return a.yes, a.err
}

// testApp returns an App with buffers, the given environment and no limactl.
func testApp(t *testing.T, env map[string]string, tty bool, pr action.Prompter) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &App{
		Streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		StdinTTY: tty, StderrTTY: tty, StdoutTTY: false,
		Prompter: pr,
		Run: func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
			t.Fatalf("unexpected external command %s %v", name, args)
			return nil, nil, nil
		},
	}
	return a, &out, &errOut
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

func writeStack(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStackSelectNoInputWritesOnlyTheLink(t *testing.T) {
	dir := t.TempDir()
	p := writeStack(t, dir, "lab", prodNoKubeconfig)
	home := t.TempDir()
	a, _, _ := testApp(t, map[string]string{"HOME": home}, false, nil)
	var errOut bytes.Buffer
	a.ErrOut = &errOut
	code := Run(a, []string{"stack", "select", "lab", "--stacks", dir, "--no-input"})
	if code != 0 {
		t.Fatalf("exit %d, want 0 (selected; the missing target is a warning)", code)
	}
	for _, want := range []string{"Warning: ", "kubeconfig: ~/.kube/lab.config", "nestor discover --cp lab1 --stack lab --stacks"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != prodNoKubeconfig {
		t.Fatalf("topology changed: %q %v", got, err)
	}
	dest, err := os.Readlink(filepath.Join(dir, ".active"))
	if err != nil || dest != "lab.yaml" {
		t.Fatalf(".active -> %q (%v), want lab.yaml", dest, err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Fatalf("HOME was written: %v", entries)
	}
}

func TestStackSelectInteractiveAddsOneLine(t *testing.T) {
	dir := t.TempDir()
	p := writeStack(t, dir, "lab", prodNoKubeconfig)
	pr := &scriptedPrompter{t: t, answers: []scripted{
		{contains: "Add `kubeconfig: ~/.kube/lab.config`", yes: true},
		{contains: "Fetch its kubeconfig (the cluster's admin credentials) from lab1", yes: false, def: "no"},
	}}
	a, _, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, true, pr)
	if code := Run(a, []string{"stack", "select", "lab", "--stacks", dir}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(p)
	want := strings.Replace(prodNoKubeconfig, "target_kind: prod\n", "target_kind: prod\nkubeconfig: ~/.kube/lab.config\n", 1)
	if string(got) != want {
		t.Fatalf("topology after select:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want the original 0640", fi.Mode().Perm())
	}
	if len(pr.answers) != 0 {
		t.Fatalf("questions not asked: %+v", pr.answers)
	}
}

func TestStackSelectInvalidIsNotSelected(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "bad", "name: bad\ntarget_kind: mars\n")
	a, _, errOut := testApp(t, map[string]string{}, false, nil)
	if code := Run(a, []string{"stack", "select", "bad", "--stacks", dir}); code != ExitError {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "bad.yaml:2:") {
		t.Fatalf("error does not name file:line: %s", errOut)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".active")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".active exists after an invalid select: %v", err)
	}
}

func TestPreviewNoTargetIsUnverified(t *testing.T) {
	dir := t.TempDir()
	p := writeStack(t, dir, "lab", prodNoKubeconfig)
	// KUBECONFIG exported but empty counts as not set (DESIGN.md).
	a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir(), "KUBECONFIG": ""}, false, nil)
	code := Run(a, []string{"preview", "-f", p, "-o", "json", "--detailed-exitcode"})
	if code != ExitError {
		t.Fatalf("exit %d, want 1 (no target is never in sync): %s", code, errOut)
	}
	var r action.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if !r.Actual.NoTarget || !r.Plan.Unverified || r.Target != nil {
		t.Fatalf("want no target + unverified plan, got %+v / %+v", r.Actual, r.Plan)
	}
	if r.FormatVersion != action.ReportFormatVersion {
		t.Fatalf("format_version %d", r.FormatVersion)
	}
	for _, s := range r.Plan.Steps {
		if s.Kind == topology.StepCreateVM || s.Kind == topology.StepStartVM {
			t.Fatalf("prod plan has a VM step: %+v", s)
		}
	}
}

func TestPreviewBadOutputFlag(t *testing.T) {
	a, _, errOut := testApp(t, map[string]string{}, false, nil)
	if code := Run(a, []string{"preview", "-o", "xml"}); code != ExitError {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), `unknown format "xml" (one of: text, json, yaml, sarif, junit, prometheus, markdown, ics, in any case)`) {
		t.Fatalf("stderr: %s", errOut)
	}
}

// -o takes a format's name in any case, as kubectl does: -o JSON is the
// JSON document, not a refusal.
func TestOutputFlagAnyCase(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", prodNoKubeconfig)
	for _, format := range []string{"JSON", "Json", "YAML"} {
		a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
		if code := Run(a, []string{"preview", "--stacks", dir, "lab", "-o", format}); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		if !strings.Contains(out.String(), "format_version") {
			t.Errorf("-o %s: not the document: %s", format, out)
		}
	}
}

func TestEnvProdPrintsNothingOnStdout(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", prodNoKubeconfig)
	a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir(), "KUBECONFIG": "/bench/kubeconfig"}, false, nil)
	if code := Run(a, []string{"env", "--stacks", dir, "--stack", "lab"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.Len() != 0 {
		t.Fatalf("stdout not empty for a prod stack: %q", out)
	}
	if !strings.Contains(errOut.String(), "/bench/kubeconfig (from KUBECONFIG") {
		t.Fatalf("stderr does not say which kubeconfig nestor reads: %s", errOut)
	}
}

func TestEnvLimaExportsTheBench(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "stacks")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeStack(t, dir, "bench", "name: bench\ntarget_kind: lima\nnodes:\n  - {name: lima-node1, role: control-plane}\n")
	kc := filepath.Join(root, ".work", "bench", "kubeconfig")
	a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
	if code := Run(a, []string{"env", "--stacks", dir, "--stack", "bench"}); code != ExitError || out.Len() != 0 {
		t.Fatalf("no bench kubeconfig yet: exit %d, stdout %q", code, out)
	}
	if err := os.MkdirAll(filepath.Dir(kc), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for shell, want := range map[string]string{
		"bash": "export KUBECONFIG='" + kc + "'\n",
		"fish": "set -gx KUBECONFIG '" + kc + "';\n",
	} {
		out.Reset()
		if code := Run(a, []string{"env", "--stacks", dir, "--stack", "bench", "--shell", shell}); code != 0 {
			t.Fatalf("%s: exit %d: %s", shell, code, errOut)
		}
		if out.String() != want {
			t.Fatalf("%s: got %q, want %q", shell, out, want)
		}
	}
}

func TestDiscoverFlagsNeedCP(t *testing.T) {
	a, _, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
	if code := Run(a, []string{"discover", "--remote-path", "/x", "--stacks", t.TempDir()}); code != 1 || !strings.Contains(errOut.String(), "--remote-path is for fetching a kubeconfig") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// --output-file in a folder that does not exist is refused before the
// read, naming the folder, never the temporary file nestor would write.
func TestOutputFileMissingFolder(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", prodNoKubeconfig)
	a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
	dest := filepath.Join(t.TempDir(), "nonexistent", "dir", "x.json")
	if code := Run(a, []string{"preview", "--stacks", dir, "lab", "-o", "json", "--output-file", dest}); code != ExitError {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "--output-file: cannot write " + dest + ": the folder " + filepath.Dir(dest) + " does not exist"
	if !strings.Contains(errOut.String(), want) || strings.Contains(errOut.String(), ".tmp-") {
		t.Errorf("stderr %q, want %q and no temporary file", errOut, want)
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
}

// A control plane without address: (and no inventory:) gives ssh nowhere
// to connect: the fetch hint says to declare the address first, never a
// bare `discover --cp` that can only fail.
func TestFetchHintNeedsAnAddress(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", strings.Replace(prodNoKubeconfig, ", address: 10.0.0.1", "", 1))
	for _, args := range [][]string{{"env", "lab"}, {"next", "lab"}, {"preview", "lab"}} {
		a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
		Run(a, append(args, "--stacks", dir))
		all := out.String() + errOut.String()
		if !strings.Contains(all, "`nestor discover --cp lab1") || !strings.Contains(all, "`, once node lab1 has an address: in "+filepath.Join(dir, "lab.yaml")+" (ssh connects to it; or declare an inventory:)") {
			t.Errorf("%v: no address hint in:\n%s", args, all)
		}
	}
	// With the address, the command alone.
	writeStack(t, dir, "lab", prodNoKubeconfig)
	a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
	Run(a, []string{"env", "lab", "--stacks", dir})
	if all := out.String() + errOut.String(); strings.Contains(all, "set address:") || !strings.Contains(all, "`nestor discover --cp lab1") {
		t.Errorf("with an address:\n%s", all)
	}
}

// A command that works on one stack refuses two names with what to do
// instead, and exits as a usage error does.
func TestOneStackRefusesSeveralNames(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{[]string{"preview", "a", "b"}, []string{"nestor preview works on one stack; got 2 names (a, b): name one", "nestor fleet a b"}},
		{[]string{"stack", "show", "a", "b", "c"}, []string{"nestor stack show works on one stack; got 3 names (a, b, c): name one"}},
		{[]string{"next", "a", "b"}, []string{"nestor next works on one stack"}},
	} {
		a, _, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
		if code := Run(a, append(c.args, "--stacks", t.TempDir())); code != ExitError {
			t.Errorf("%v: exit %d, want %d", c.args, code, ExitError)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut.String(), w) {
				t.Errorf("%v: %q lacks %q", c.args, errOut.String(), w)
			}
		}
	}
}
