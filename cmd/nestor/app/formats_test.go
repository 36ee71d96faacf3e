package app

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"nestor.dev/nestor/cmd/nestor/action"
)

// A kubeconfig of another cluster than the stack's endpoint:.
const otherKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://10.99.0.1:6443"}
contexts:
- name: other
  context: {cluster: other, user: u}
users:
- name: u
  user: {token: x}
current-context: other
`

// TestMachineFormatsExitCodes runs preview and fleet through app.Run in
// every format, on a stack with no target (a report, unverified) and on a
// stack refused by the offline endpoint check (no report): the exit code is
// the same whatever the format, the machine formats never prompt, and a
// refusal still writes a valid document of the format.
func TestMachineFormatsExitCodes(t *testing.T) {
	dir := t.TempDir()
	stacksDir := filepath.Join(dir, "stacks")
	if err := os.MkdirAll(stacksDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeStack(t, stacksDir, "lab", prodNoKubeconfig)
	kc := filepath.Join(dir, "other.config")
	if err := os.WriteFile(kc, []byte(otherKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	writeStack(t, stacksDir, "edge", "name: edge\ntarget_kind: prod\nkubeconfig: "+kc+"\nendpoint: https://10.9.0.1:6443\nnodes:\n  - {name: edge1, role: control-plane}\n")
	env := map[string]string{"HOME": dir, "NESTOR_STACKS": stacksDir}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		a, out, errOut := testApp(t, env, true, &scriptedPrompter{t: t}) // a terminal: only the format keeps it from prompting
		code := Run(a, args)
		return code, out.String(), errOut.String()
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"preview", "--stack", "lab", "--detailed-exitcode"}, 1},
		{[]string{"preview", "--stack", "lab"}, 0},
		{[]string{"preview", "--stack", "edge", "--no-input"}, 1},
		{[]string{"fleet", "--detailed-exitcode"}, 1},
		{[]string{"fleet"}, 0},
	} {
		for _, format := range []string{"json", "sarif", "junit", "prometheus", "markdown", "ics"} {
			args := append(append([]string{}, c.args...), "-o", format)
			code, out, errOut := run(args...)
			if code != c.code {
				t.Errorf("%v: exit %d, want %d (stderr %s)", args, code, c.code, errOut)
			}
			refused := c.args[0] == "preview" && c.args[2] == "edge"
			if refused && format == "json" {
				continue // -o json writes no document for an error (format_version 1 unchanged)
			}
			checkDocument(t, format, out, args)
			if refused && !strings.Contains(out, "refused") {
				t.Errorf("%v: the document does not say refused:\n%s", args, out)
			}
		}
	}
}

// checkDocument parses out as format and fails the test when it does not.
func checkDocument(t *testing.T, format, out string, args []string) {
	t.Helper()
	var err error
	switch format {
	case "json", "sarif":
		var v map[string]any
		err = json.Unmarshal([]byte(out), &v)
		if err == nil && format == "sarif" && v["version"] != "2.1.0" {
			t.Errorf("%v: not SARIF 2.1.0:\n%s", args, out)
		}
	case "junit":
		var v struct {
			XMLName xml.Name `xml:"testsuites"`
		}
		err = xml.Unmarshal([]byte(out), &v)
	case "prometheus":
		p := expfmt.NewTextParser(model.UTF8Validation)
		_, err = p.TextToMetricFamilies(strings.NewReader(out))
		if err == nil && !strings.Contains(out, "nestor_read_success{") {
			t.Errorf("%v: no nestor_read_success:\n%s", args, out)
		}
	case "markdown":
		if !strings.HasPrefix(out, "### nestor ") {
			t.Errorf("%v: not the markdown document:\n%s", args, out)
		}
	case "ics":
		var cal *ics.Calendar
		cal, err = ics.ParseCalendar(strings.NewReader(out))
		if err == nil && (!strings.HasPrefix(out, "BEGIN:VCALENDAR\r\n") || !strings.Contains(out, "\r\nX-NESTOR-UNDATED:") || len(cal.Events()) != 0) {
			t.Errorf("%v: not a calendar that says why it has no date (nothing was read):\n%s", args, out)
		}
	}
	if err != nil {
		t.Errorf("%v: %s does not parse: %v\n%s", args, format, err, out)
	}
}

// TestOutputFile: --output-file writes the document to the file, nothing on
// stdout, replaces an existing file whole (no temporary file left beside
// it, the file's mode kept), writes the failure document on a refusal, and
// is refused with -o text.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", prodNoKubeconfig)
	kc := filepath.Join(dir, "other.config")
	if err := os.WriteFile(kc, []byte(otherKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	writeStack(t, dir, "edge", "name: edge\ntarget_kind: prod\nkubeconfig: "+kc+"\nendpoint: https://10.9.0.1:6443\nnodes:\n  - {name: edge1, role: control-plane}\n")
	outDir := filepath.Join(dir, "textfile")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	prom := filepath.Join(outDir, "nestor.prom")
	if err := os.WriteFile(prom, []byte("old content\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	a, out, errOut := testApp(t, map[string]string{"HOME": dir}, false, nil)
	if code := Run(a, []string{"preview", "-f", filepath.Join(dir, "lab.yaml"), "-o", "prometheus", "--output-file", prom}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.Len() != 0 {
		t.Errorf("stdout has %q", out)
	}
	data, err := os.ReadFile(prom)
	if err != nil || !bytes.Contains(data, []byte(`nestor_read_success{stack="lab",status="no target"} 0`)) || bytes.Contains(data, []byte("\nnestor_plan_")) {
		t.Errorf("%s: %v\n%s", prom, err, data)
	}
	if fi, err := os.Stat(prom); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want 0640 kept", fi.Mode(), err)
	}
	a, _, errOut = testApp(t, map[string]string{"HOME": dir}, false, nil)
	if code := Run(a, []string{"preview", "-f", filepath.Join(dir, "edge.yaml"), "-o", "prometheus", "--output-file", prom}); code != 1 {
		t.Fatalf("refusal: exit %d: %s", code, errOut)
	}
	if data, _ = os.ReadFile(prom); !bytes.Contains(data, []byte(`nestor_read_success{stack="edge",status="refused"} 0`)) {
		t.Errorf("after the refusal %s holds\n%s", prom, data)
	}
	if !strings.Contains(errOut.String(), "refusing") && !strings.Contains(errOut.String(), "not the stack edge") {
		t.Errorf("the refusal is not on stderr: %s", errOut)
	}
	entries, _ := os.ReadDir(outDir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %v: a temporary file was left", entries)
	}
	a, _, errOut = testApp(t, map[string]string{"HOME": dir}, false, nil)
	if code := Run(a, []string{"preview", "-f", filepath.Join(dir, "lab.yaml"), "--output-file", prom}); code != 1 || !strings.Contains(errOut.String(), "--output-file writes a machine format") {
		t.Errorf("-o text with --output-file: exit %d, %s", code, errOut)
	}
	a, _, errOut = testApp(t, map[string]string{"HOME": dir}, false, nil)
	if code := Run(a, []string{"preview", "-f", filepath.Join(dir, "lab.yaml"), "-o", "sarif", "--output-file", filepath.Join(dir, "no-such-dir", "x.sarif")}); code != 1 || !strings.Contains(errOut.String(), "--output-file") {
		t.Errorf("an unwritable --output-file: exit %d, %s", code, errOut)
	}
}

// TestOutputFileKeptWhenInterrupted: a command interrupted before it made
// its report (Ctrl-C during fleet -o prometheus --output-file) leaves the
// file as it was — never a document that says only "interrupted", about a
// stack named "", with every stack already read dropped — while a failure
// that is not an interruption still writes its document there.
func TestOutputFileKeptWhenInterrupted(t *testing.T) {
	dir := t.TempDir()
	prom := filepath.Join(dir, "nestor.prom")
	old := []byte("nestor_read_success{stack=\"lab\",status=\"read\"} 1\n")
	if err := os.WriteFile(prom, old, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _, _ := testApp(t, map[string]string{"HOME": dir}, false, nil)
	out := &outputFlag{value: "prometheus", file: prom}
	if err := out.emitFailure(a, action.NewFailure(nil, context.Canceled)); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(prom); !bytes.Equal(data, old) {
		t.Errorf("interrupted: %s now holds\n%s", prom, data)
	}
	if err := out.emitFailure(a, action.NewFailure(nil, errors.New("no stacks folder"))); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(prom); bytes.Equal(data, old) {
		t.Errorf("a failure that is not an interruption left %s as it was", prom)
	}
}
