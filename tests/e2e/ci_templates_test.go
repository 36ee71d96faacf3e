package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// The CI templates: action.yml (a GitHub composite action) and
// ci/gitlab/nestor.gitlab-ci.yml (a GitLab CI job template). Each is
// validated against its published schema (tests/testdata/schemas, whose
// README names the source and date) and its shell run against a stack
// with no target, installing nestor from a release folder laid out as a
// release is (<url>/<tag>/nestor_<version>_<os>_<arch>.tar.gz and the
// checksums file) served as file:// URLs.

// yamlAsJSON reads a YAML file as the JSON value a schema validates.
func yamlAsJSON(t *testing.T, path string) (any, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return inst, doc
}

// validateAgainst validates the YAML file against the vendored schema
// named, and checks that the schema is live: it refuses bad.
func validateAgainst(t *testing.T, schemaFile, path string, bad any) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "tests", "testdata", "schemas", schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file:///schemas/" + schemaFile
	if err := c.AddResource(url, schemaDoc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	inst, doc := yamlAsJSON(t, path)
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not validate against %s: %v", filepath.Base(path), schemaFile, err)
	}
	if s.Validate(bad) == nil {
		t.Errorf("%s accepts %v", schemaFile, bad)
	}
	return doc
}

// fakeRelease lays out, under a new folder, the release tag of the nestor
// built for these tests as .goreleaser.yaml names it, and returns the
// folder's file:// URL.
func fakeRelease(t *testing.T, tag string) string {
	t.Helper()
	dir := t.TempDir()
	v := strings.TrimPrefix(tag, "v")
	rel := filepath.Join(dir, tag)
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := fmt.Sprintf("nestor_%s_%s_%s.tar.gz", v, runtime.GOOS, runtime.GOARCH)
	bin := nestorBinary(t)
	tarCmd := exec.Command("tar", "-czf", filepath.Join(rel, archive), "-C", filepath.Dir(bin), filepath.Base(bin))
	if out, err := tarCmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(rel, archive))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums := fmt.Sprintf("%x  %s\n%x  nestor_%s_other.tar.gz\n", sum, archive, sha256.Sum256(nil), v)
	if err := os.WriteFile(filepath.Join(rel, "nestor_"+v+"_checksums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + dir
}

// noTargetStacks writes a stacks folder holding lab, a prod stack whose
// kubeconfig does not exist: a report with nothing read (exit 0; 1 with
// --detailed-exitcode).
func noTargetStacks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	topo := "name: lab\ntarget_kind: prod\nkubeconfig: " + filepath.Join(dir, "missing.config") +
		"\nendpoint: https://10.99.0.1:6443\nnodes:\n  - {name: lab1, role: control-plane}\nlayers: []\n"
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ciEnv is a minimal environment for the templates' shell: PATH without
// nestor (the scripts install it), HOME, and the variables given.
func ciEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	return append([]string{"PATH=" + path, "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, extra...)
}

// expr is ${{ … }} in a GitHub Actions value.
var expr = regexp.MustCompile(`^\$\{\{\s*(.*?)\s*\}\}$`)

// evalEnv evaluates an env: value of action.yml the way the runner would,
// for the expressions it uses: inputs.NAME, steps.ID.outputs.NAME,
// github.action_ref, and a || b (the first that is not empty).
func evalEnv(t *testing.T, v string, inputs map[string]string, outputs map[string]map[string]string, actionRef string) string {
	t.Helper()
	m := expr.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	for _, term := range strings.Split(m[1], "||") {
		term = strings.TrimSpace(term)
		var got string
		switch {
		case strings.HasPrefix(term, "inputs."):
			got = inputs[strings.TrimPrefix(term, "inputs.")]
		case strings.HasPrefix(term, "steps."):
			parts := strings.Split(term, ".")
			if len(parts) != 4 || parts[2] != "outputs" {
				t.Fatalf("expression %q: not steps.ID.outputs.NAME", term)
			}
			got = outputs[parts[1]][parts[3]]
		case term == "github.action_ref":
			got = actionRef
		default:
			t.Fatalf("expression %q: the test does not evaluate it", term)
		}
		if got != "" {
			return got
		}
	}
	return ""
}

// readOutputs reads a $GITHUB_OUTPUT file (name=value lines).
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return out
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}

// actionRun runs action.yml's steps as the runner would for a composite
// action: its run steps with bash (-e as shell: bash does), each step's
// env: evaluated, $GITHUB_OUTPUT read back into steps.ID.outputs,
// $GITHUB_PATH added to PATH; a uses: step is left out (it is GitHub's).
// It returns the exit code of the last step run, the job folder, the
// steps' outputs and the job summary written.
func actionRun(t *testing.T, doc map[string]any, given map[string]string, actionRef string) (int, string, map[string]map[string]string, string) {
	t.Helper()
	inputs := map[string]string{}
	for name, spec := range doc["inputs"].(map[string]any) {
		if d, ok := spec.(map[string]any)["default"].(string); ok {
			inputs[name] = d
		}
	}
	for k, v := range given {
		inputs[k] = v
	}
	work, temp := t.TempDir(), t.TempDir()
	summary, ghPath := filepath.Join(temp, "summary.md"), filepath.Join(temp, "path")
	outputs := map[string]map[string]string{}
	var extraPath []string
	code := 0
	for i, s := range doc["runs"].(map[string]any)["steps"].([]any) {
		step := s.(map[string]any)
		script, ok := step["run"].(string)
		if !ok {
			continue
		}
		if strings.Contains(script, "${{") {
			t.Errorf("step %d (%v) has an expression inside its script: pass it through env:", i, step["name"])
		}
		id, _ := step["id"].(string)
		outFile := filepath.Join(temp, fmt.Sprintf("output-%d", i))
		env := ciEnv(t, "RUNNER_TEMP="+temp, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_PATH="+ghPath, "GITHUB_OUTPUT="+outFile)
		if len(extraPath) > 0 {
			env[0] = "PATH=" + strings.Join(extraPath, ":") + ":" + strings.TrimPrefix(env[0], "PATH=")
		}
		for k, v := range step["env"].(map[string]any) {
			env = append(env, k+"="+evalEnv(t, v.(string), inputs, outputs, actionRef))
		}
		// shell: bash runs `bash --noprofile --norc -eo pipefail {0}`.
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		t.Logf("step %v:\n%s", step["name"], out)
		code = 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		if id != "" {
			outputs[id] = readOutputs(t, outFile)
		}
		if data, err := os.ReadFile(ghPath); err == nil {
			extraPath = strings.Fields(string(data))
		}
		if code != 0 {
			break
		}
	}
	summaryText, _ := os.ReadFile(summary)
	return code, work, outputs, string(summaryText)
}

// TestGitHubAction: action.yml validates against SchemaStore's
// github-action schema; run as the runner would, it installs the release
// named by the action's ref (checksum verified), writes the SARIF log and
// the Markdown summary, sets its outputs and exits with nestor's code.
func TestGitHubAction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary; skipped in -short mode")
	}
	root := repoRoot(t)
	doc := validateAgainst(t, "github-action.json", filepath.Join(root, "action.yml"),
		map[string]any{"name": "x", "description": "y", "runs": map[string]any{"using": "composite", "steps": []any{map[string]any{"run": "true"}}}})
	for _, s := range doc["runs"].(map[string]any)["steps"].([]any) {
		if u, _ := s.(map[string]any)["uses"].(string); u != "" && !strings.HasPrefix(u, "github/codeql-action/upload-sarif@") {
			t.Errorf("unexpected action %s", u)
		}
	}
	url := fakeRelease(t, "v9.9.9")
	stacks := noTargetStacks(t)

	code, work, outputs, summary := actionRun(t, doc, map[string]string{"release-url": url, "stacks": "lab", "args": "--stacks " + stacks,
		"formats": "sarif,markdown,junit,ics"}, "v9.9.9")
	if code != 0 {
		t.Fatalf("the action exited %d", code)
	}
	if got := outputs["run"]; got["exit-code"] != "0" || got["sarif-file"] != "nestor-reports/nestor.sarif" {
		t.Errorf("outputs %v", got)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []any  `json:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(work, "nestor-reports", "nestor.sarif"))
	if err != nil || json.Unmarshal(data, &log) != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Errorf("nestor.sarif is not a SARIF 2.1.0 log of one run (%v):\n%s", err, data)
	}
	md, _ := os.ReadFile(filepath.Join(work, "nestor-reports", "nestor.md"))
	if !strings.Contains(summary, "nestor preview: lab") || summary != string(md) {
		t.Errorf("the job summary is not nestor.md:\n%s\n---\n%s", summary, md)
	}
	if _, err := os.Stat(filepath.Join(work, "nestor-reports", "nestor.junit.xml")); err != nil {
		t.Error(err)
	}
	if ics, err := os.ReadFile(filepath.Join(work, "nestor-reports", "nestor.ics")); err != nil || !bytes.HasPrefix(ics, []byte("BEGIN:VCALENDAR")) {
		t.Errorf("nestor.ics is not a calendar (%v):\n%s", err, ics)
	}

	// --detailed-exitcode on a stack read of nothing: exit 1, which the
	// last step returns, after the reports are written.
	code, _, outputs, _ = actionRun(t, doc, map[string]string{"release-url": url, "stacks": "lab", "args": "--stacks " + stacks + " --detailed-exitcode"}, "v9.9.9")
	if code != 1 || outputs["run"]["exit-code"] != "1" {
		t.Errorf("with --detailed-exitcode: the action exited %d, outputs %v; want 1", code, outputs["run"])
	}

	// A ref that is not a tag, and no version: refused with the way out.
	code, _, _, _ = actionRun(t, doc, map[string]string{"release-url": url}, "main")
	if code == 0 {
		t.Error("the action installed nestor for ref main")
	}
}

// TestGitLabTemplate: the job template validates against GitLab's CI
// schema; its script, run by sh, installs the release (checksum
// verified) and writes the JUnit report its artifacts declare.
func TestGitLabTemplate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary; skipped in -short mode")
	}
	root := repoRoot(t)
	doc := validateAgainst(t, "gitlab-ci.json", filepath.Join(root, "ci", "gitlab", "nestor.gitlab-ci.yml"),
		map[string]any{"job": map[string]any{"script": "true", "artifacts": map[string]any{"when": "sometimes"}}})
	job := doc[".nestor"].(map[string]any)
	var script []string
	for _, l := range job["script"].([]any) {
		script = append(script, l.(string))
	}
	reports := job["artifacts"].(map[string]any)["reports"].(map[string]any)
	junit := reports["junit"].(string)
	url := fakeRelease(t, "v9.9.9")
	stacks := noTargetStacks(t)
	vars := map[string]string{}
	for k, v := range job["variables"].(map[string]any) {
		vars[k] = fmt.Sprint(v)
	}
	vars["NESTOR_VERSION"], vars["NESTOR_RELEASE_URL"] = "v9.9.9", url
	vars["NESTOR_STACKS"], vars["NESTOR_ARGS"] = "lab", "--stacks "+stacks
	work := t.TempDir()
	env := ciEnv(t, "CI_BUILDS_DIR="+t.TempDir())
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	// GitLab's runner runs the script lines one after the other in one
	// shell, stopping at the first that fails.
	cmd := exec.Command("sh", "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir, cmd.Env = work, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the job's script: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(work, junit))
	if err != nil {
		t.Fatalf("the JUnit report the artifacts declare: %v\n%s", err, out)
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Errorf("%s: %v\n%s", junit, err, data)
	}
	for _, f := range []string{"nestor.sarif", "nestor.md"} {
		if _, err := os.Stat(filepath.Join(work, "nestor-reports", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestCITemplatesKnowEveryFormat: each template maps every machine format
// `nestor preview --help` offers (every -o value but text) to its file, and
// no other: a format added to nestor is a format its CI jobs can write.
func TestCITemplatesKnowEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary; skipped in -short mode")
	}
	help, err := exec.Command(nestorBinary(t), "preview", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`output format: ([a-z|]+)`).FindSubmatch(help)
	if m == nil {
		t.Fatalf("preview --help names no output format:\n%s", help)
	}
	var want []string
	for _, f := range strings.Split(string(m[1]), "|") {
		if f != "text" {
			want = append(want, f)
		}
	}
	sort.Strings(want)
	root := repoRoot(t)
	for _, file := range []string{"action.yml", filepath.Join("ci", "gitlab", "nestor.gitlab-ci.yml")} {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range regexp.MustCompile(`(?m)^\s*([a-z]+)\) file=nestor\.`).FindAllSubmatch(data, -1) {
			got = append(got, string(c[1]))
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s writes the formats %v; nestor preview -o offers %v", file, got, want)
		}
	}
}
