package e2e

// Helpers of the end-to-end tests of preview, the target guard, env and next:
// the built nestor binary, the test clusters shared by several tests, a
// "world" (a HOME, a stacks folder and kubeconfigs in temporary folders) in
// which nestor runs with an environment built from scratch, and the "never
// writes" check every run goes through (DESIGN.md "What never writes means,
// and how it is proven").

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/tests/harness"
	"nestor.dev/nestor/topology"
)

// nestorUA is the prefix of nestor's user agent (nestor/<version>); the audit
// log tells nestor's requests apart by it.
const nestorUA = "nestor/"

// runLimit bounds one run of the binary: no run of these tests may hang.
const runLimit = 60 * time.Second

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// repoRoot is the module root (go test runs in tests/e2e).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

// nestorBinary builds ./cmd/nestor once per test binary (go build, into a
// temporary folder removed by TestMain) and returns its path.
func nestorBinary(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "nestor-e2e-bin-")
		if buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "nestor")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/nestor")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/nestor: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Shared clusters: started once, on first use, stopped by TestMain.
var (
	sharedMu       sync.Mutex
	sharedClusters = map[string]*sharedCluster{}
)

type sharedCluster struct {
	c   *harness.Cluster
	err error
}

// clusterFixture is the path of a fixture of tests/testdata/clusters.
func clusterFixture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "tests", "testdata", "clusters", name)
}

// sharedFixtureCluster returns the running cluster loaded with fixture (a
// file of tests/testdata/clusters), started on the first call and shared by
// every test that asks for the same fixture. Tests must not change such a
// cluster: a test that mutates starts its own (ownCluster). Skipped in -short.
func sharedFixtureCluster(t testing.TB, fixture string) *harness.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver + etcd; skipped in -short mode")
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sc, ok := sharedClusters[fixture]
	if !ok {
		sc = &sharedCluster{}
		start := time.Now()
		sc.c, sc.err = harness.Start(harness.Options{})
		if sc.err == nil {
			if err := sc.c.LoadFixture(clusterFixture(t, fixture)); err != nil {
				sc.err = err
				_ = sc.c.Stop()
				sc.c = nil
			}
		}
		if sc.err == nil {
			t.Logf("shared cluster %s with %s ready in %v", sc.c.URL, fixture, time.Since(start).Round(time.Millisecond))
		}
		sharedClusters[fixture] = sc
	}
	if sc.err != nil {
		t.Fatalf("shared cluster with %s: %v", fixture, sc.err)
	}
	return sc.c
}

// stopSharedClusters stops every shared cluster (TestMain).
func stopSharedClusters() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for name, sc := range sharedClusters {
		if sc.c != nil {
			if err := sc.c.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "stop shared cluster %s: %v\n", name, err)
			}
		}
	}
}

// ownCluster starts a cluster for t alone, loaded with fixture; t may change it.
func ownCluster(t *testing.T, fixture string) *harness.Cluster {
	t.Helper()
	c := harness.StartT(t, harness.Options{})
	if err := c.LoadFixture(clusterFixture(t, fixture)); err != nil {
		t.Fatalf("load %s: %v", fixture, err)
	}
	return c
}

// world is where one test runs nestor: Root holds Home (the HOME nestor
// sees), Stacks (the stacks folder) and whatever the test writes there
// (kubeconfigs, the bench's .work folder). The limactl stand-in is on PATH
// first, logging its calls to LimaLog (outside Root).
type world struct {
	t      *testing.T
	Root   string
	Home   string
	Stacks string
	// LimaBin is the folder holding the limactl stand-in; LimaLog its call log.
	LimaBin, LimaLog string
	// LimaOutput is the recorded `limactl list --json` output the stand-in prints.
	LimaOutput string
	// Extra are files outside Root that must not change either (harness
	// kubeconfigs handed to nestor as they are).
	Extra []string
	// Clusters are the clusters whose audit log every run checks.
	Clusters []*harness.Cluster
}

// newWorld makes an empty world: Root/home, Root/stacks, the limactl stand-in
// copied into its own folder (so its mode does not depend on the checkout)
// and the recorded output bench-node2-stopped.jsonl.
func newWorld(t *testing.T, clusters ...*harness.Cluster) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, Root: root, Home: filepath.Join(root, "home"), Stacks: filepath.Join(root, "stacks"), Clusters: clusters}
	for _, d := range []string{w.Home, w.Stacks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lima := t.TempDir()
	w.LimaBin = filepath.Join(lima, "bin")
	w.LimaLog = filepath.Join(lima, "calls.log")
	if err := os.MkdirAll(w.LimaBin, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "tests", "testdata", "limactl", "limactl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.LimaBin, "limactl"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.LimaLog, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.LimaOutput = limaRecording(t, "bench-node2-stopped.jsonl")
	return w
}

// limaRecording is the path of a recorded limactl output.
func limaRecording(t testing.TB, name string) string {
	return filepath.Join(repoRoot(t), "tests", "testdata", "limactl", name)
}

// path joins elements under Root.
func (w *world) path(elem ...string) string {
	return filepath.Join(append([]string{w.Root}, elem...)...)
}

// writeFile writes data to p (folders created), failing the test on error.
func (w *world) writeFile(p string, data []byte) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// kubeconfig writes a kubeconfig for identity of c pointing at server (c.URL
// when empty) to p and returns p.
func (w *world) kubeconfig(c *harness.Cluster, p, identity, server string) string {
	w.t.Helper()
	if server == "" {
		server = c.URL
	}
	if err := c.WriteKubeconfig(p, identity, server); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// stackFile writes the topology of stack name into the stacks folder.
func (w *world) stackFile(name, text string) string {
	w.t.Helper()
	p := filepath.Join(w.Stacks, name+".yaml")
	w.writeFile(p, []byte(text))
	return p
}

// dirqualStack writes stacks/dirqual.yaml: the shipped example
// (stacks/examples/dirqual.yaml, comments and all) with its endpoint: line
// replaced by endpoint (the line removed when endpoint is "") and its
// kubeconfig: line by kubeconfig (removed when ""). It returns the file.
func (w *world) dirqualStack(endpoint, kubeconfig string) string {
	w.t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(w.t), "stacks", "examples", "dirqual.yaml"))
	if err != nil {
		w.t.Fatal(err)
	}
	text := replaceLine(w.t, string(src), "endpoint:", endpoint)
	text = replaceLine(w.t, text, "kubeconfig:", kubeconfig)
	return w.stackFile("dirqual", text)
}

// benchStack writes stacks/bench.yaml, the shipped example as it is.
func (w *world) benchStack() string {
	w.t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(w.t), "stacks", "examples", "bench.yaml"))
	if err != nil {
		w.t.Fatal(err)
	}
	return w.stackFile("bench", string(src))
}

// benchKubeconfig is where the bench stack's kubeconfig lives by default:
// .work/bench/kubeconfig beside the stacks folder (DESIGN.md).
func (w *world) benchKubeconfig() string { return w.path(".work", "bench", "kubeconfig") }

// replaceLine replaces the one top-level line starting with key by
// "key value" (drops it when value is ""); it fails when there is not
// exactly one such line.
func replaceLine(t testing.TB, text, key, value string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	var out []string
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, key) {
			n++
			if value != "" {
				out = append(out, key+" "+value)
			}
			continue
		}
		out = append(out, l)
	}
	if n != 1 {
		t.Fatalf("expected one %q line in the example topology, found %d", key, n)
	}
	return strings.Join(out, "\n")
}

// env builds nestor's environment from scratch: PATH with the limactl
// stand-in first, HOME, NO_COLOR=1 and the stand-in's settings, then extra
// ("KEY=value"; "KUBECONFIG=" exports it empty). No KUBECONFIG unless given.
func (w *world) env(extra ...string) []string {
	env := []string{
		"PATH=" + w.LimaBin + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + w.Home,
		"NO_COLOR=1",
		"LIMACTL_STANDIN_LOG=" + w.LimaLog,
		"LIMACTL_STANDIN_OUTPUT=" + w.LimaOutput,
	}
	return append(env, extra...)
}

// result is one run of the binary.
type result struct {
	args           []string
	code           int
	stdout, stderr string
	took           time.Duration
	// audit are nestor's requests during the run, per cluster of the world
	// (same order as world.Clusters).
	audit [][]harness.AuditEvent
}

func (r result) String() string {
	return fmt.Sprintf("nestor %s → exit %d in %v\n--- stdout\n%s--- stderr\n%s", strings.Join(r.args, " "), r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// limaCalls returns the limactl stand-in's call log, one call a line.
func (w *world) limaCalls() []string {
	w.t.Helper()
	b, err := os.ReadFile(w.LimaLog)
	if err != nil {
		w.t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// resetLimaLog empties the stand-in's call log.
func (w *world) resetLimaLog() {
	w.t.Helper()
	if err := os.WriteFile(w.LimaLog, nil, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// runOpts tune one run.
type runOpts struct {
	env []string
	// stdin, when set, is the process's stdin; else /dev/null.
	stdin *os.File
	// nofile, when not 0, is the process's open-file limit (RLIMIT_NOFILE,
	// soft and hard), set by util-linux's prlimit, which runs nestor.
	nofile uint64
}

// run runs the built nestor with args in the world (cwd Root, stdin
// /dev/null, environment w.env(extra...)) and proves it wrote nothing: Root
// and the Extra files are byte-identical before and after, and every request
// nestor's user agent made to the world's clusters is a get, list or watch.
// The run is killed after runLimit.
func (w *world) run(extra []string, args ...string) result {
	w.t.Helper()
	return w.runWith(runOpts{env: w.env(extra...)}, args...)
}

func (w *world) runWith(o runOpts, args ...string) result {
	w.t.Helper()
	bin := nestorBinary(w.t)
	before := w.snapshot()
	marks := make([]int, len(w.Clusters))
	for i, c := range w.Clusters {
		marks[i] = len(auditEvents(w.t, c))
	}

	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if o.nofile > 0 {
		prlimit, err := exec.LookPath("prlimit")
		if err != nil {
			w.t.Fatalf("an open-file limit needs util-linux's prlimit: %v", err)
		}
		cmd = exec.CommandContext(ctx, prlimit, append([]string{fmt.Sprintf("--nofile=%d:%d", o.nofile, o.nofile), "--", bin}, args...)...)
	}
	cmd.Dir = w.Root
	cmd.Env = o.env
	if o.stdin != nil {
		cmd.Stdin = o.stdin
	} else {
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			w.t.Fatal(err)
		}
		defer devnull.Close()
		cmd.Stdin = devnull
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		w.t.Fatalf("nestor %s did not end within %v (killed)\n%s", strings.Join(args, " "), runLimit, r)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		w.t.Fatalf("run nestor: %v", err)
	}
	w.t.Logf("%s", r)

	w.assertUnchanged(before, r)
	r.audit = make([][]harness.AuditEvent, len(w.Clusters))
	for i, c := range w.Clusters {
		r.audit[i] = auditEvents(w.t, c)[marks[i]:]
		assertReadOnlyAudit(w.t, c, r.audit[i], r)
	}
	return r
}

// auditEvents returns nestor's requests to c so far.
func auditEvents(t testing.TB, c *harness.Cluster) []harness.AuditEvent {
	t.Helper()
	ev, err := c.AuditEvents(nestorUA)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// assertReadOnlyAudit fails unless every event is a get, list or watch.
func assertReadOnlyAudit(t testing.TB, c *harness.Cluster, events []harness.AuditEvent, r result) {
	t.Helper()
	for _, e := range events {
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Errorf("never writes: nestor sent %q to %s (only get/list/watch allowed)\nrun: nestor %s", e, c.URL, strings.Join(r.args, " "))
		}
	}
}

// snapshot hashes every file, folder and symlink under Root and every Extra
// file: path → kind, mode and content hash (or link target).
func (w *world) snapshot() map[string]string {
	w.t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(w.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return record(snap, p)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, p := range w.Extra {
		if err := record(snap, p); err != nil {
			w.t.Fatal(err)
		}
	}
	return snap
}

func record(snap map[string]string, p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		snap[p] = "link " + target
	case st.IsDir():
		snap[p] = "dir " + st.Mode().String()
	default:
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		snap[p] = "file " + st.Mode().String() + " " + hex.EncodeToString(sum[:])
	}
	return nil
}

// assertUnchanged compares a snapshot with the current state.
func (w *world) assertUnchanged(before map[string]string, r result) {
	w.t.Helper()
	if diffs := treeDiffs(before, w.snapshot()); len(diffs) > 0 {
		w.t.Errorf("never writes: nestor %s changed files:\n  %s", strings.Join(r.args, " "), strings.Join(diffs, "\n  "))
	}
}

// --- the preview JSON document (README.md "preview -o json") -------------

type fact[T any] struct {
	Known  bool   `json:"known"`
	Reason string `json:"reason"`
	Value  T      `json:"value"`
}

type previewDoc struct {
	FormatVersion int `json:"format_version"`
	Stack         struct {
		Name       string `json:"name"`
		File       string `json:"file"`
		TargetKind string `json:"target_kind"`
	} `json:"stack"`
	Target *struct {
		Endpoint         string   `json:"endpoint"`
		Context          string   `json:"context"`
		Kubeconfig       []string `json:"kubeconfig"`
		Source           string   `json:"source"`
		SourceDetail     string   `json:"source_detail"`
		DeclaredEndpoint string   `json:"declared_endpoint"`
		EndpointMatches  *bool    `json:"endpoint_matches"`
	} `json:"target"`
	Desired struct {
		TargetKind   string `json:"target_kind"`
		Nodes        []struct{ Name, Role, Address string }
		Phases       []string `json:"phases"`
		Layers       []string `json:"layers"`
		Backend      string   `json:"backend"`
		BackendLayer string   `json:"backend_layer"`
	} `json:"desired"`
	Actual struct {
		NoTarget       bool   `json:"no_target"`
		NoTargetReason string `json:"no_target_reason"`
		VMs            *fact[[]struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		}] `json:"vms"`
		ServerVersion fact[string] `json:"server_version"`
		Nodes         fact[[]struct {
			Name           string   `json:"name"`
			Ready          bool     `json:"ready"`
			Roles          []string `json:"roles"`
			KubeletVersion string   `json:"kubelet_version"`
			InternalIP     string   `json:"internal_ip"`
		}] `json:"nodes"`
		Layers []struct {
			Name     string `json:"name"`
			Declared bool   `json:"declared"`
			Health   string `json:"health"`
			Reason   string `json:"reason"`
		} `json:"layers"`
		Storage fact[struct {
			Class       string `json:"class"`
			Provisioner string `json:"provisioner"`
			Backend     string `json:"backend"`
		}] `json:"storage"`
	} `json:"actual"`
	Plan struct {
		Steps      []planStep  `json:"steps"`
		Unverified bool        `json:"unverified"`
		Unknowns   []jsonClaim `json:"unknowns"`
	} `json:"plan"`
	Summary struct {
		Changes    int            `json:"changes"`
		ByKind     map[string]int `json:"by_kind"`
		Undeclared int            `json:"undeclared"`
		Unknown    int            `json:"unknown"`
		InSync     bool           `json:"in_sync"`
	} `json:"summary"`
}

type planStep struct {
	Kind    string        `json:"kind"`
	Phase   string        `json:"phase"`
	Target  string        `json:"target"`
	Reason  string        `json:"reason"`
	To      string        `json:"to"`
	Needs   []string      `json:"needs"`
	Blocked []jsonSubject `json:"blocked"`
}

// decodePreview decodes the -o json document of r (exactly one JSON value on
// stdout) and checks its format version.
func decodePreview(t testing.TB, r result) previewDoc {
	t.Helper()
	var doc previewDoc
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("preview -o json: stdout is not the JSON document: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("preview -o json: more than one JSON value on stdout\n%s", r)
	}
	if doc.FormatVersion != 2 {
		t.Errorf("format_version = %d, want 2", doc.FormatVersion)
	}
	checkPlanOrder(t, r.stdout)
	return doc
}

// checkPlanOrder decodes the plan and the versions of preview's -o json
// document doc into nestor's own types and fails t unless the plan is a
// valid order (plan.CheckOrder): every plan an end-to-end test reads is
// checked against the real API server's versions.
func checkPlanOrder(t testing.TB, doc string) {
	t.Helper()
	var d struct {
		Actual *struct {
			Versions *topology.Fact[topology.VersionsState] `json:"versions"`
		} `json:"actual"`
		Plan *topology.Plan `json:"plan"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("preview -o json: %v", err)
	}
	if d.Plan == nil {
		return
	}
	vs := topology.UnknownFact[topology.VersionsState](topology.Because(topology.ReasonNotRead, "not in the document"))
	if d.Actual != nil && d.Actual.Versions != nil {
		vs = *d.Actual.Versions
	}
	if err := plan.CheckOrder(*d.Plan, vs); err != nil {
		t.Errorf("preview -o json: the plan is not a valid order:\n%v", err)
	}
}

// changeSteps are the plan's steps that change something (not undeclared).
func (d previewDoc) changeSteps() []planStep {
	var out []planStep
	for _, s := range d.Plan.Steps {
		if s.Kind != "undeclared" {
			out = append(out, s)
		}
	}
	return out
}

// layer returns the state of the declared layer name.
func (d previewDoc) layer(t testing.TB, name string) (health, reason string) {
	t.Helper()
	for _, l := range d.Actual.Layers {
		if l.Name == name && l.Declared {
			return l.Health, l.Reason
		}
	}
	t.Fatalf("layer %s not in actual.layers: %+v", name, d.Actual.Layers)
	return "", ""
}

// --- assertions ---------------------------------------------------------

func wantCode(t testing.TB, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\n%s", r.code, code, r)
	}
}

// wantLine fails unless some line of text matches the regular expression re.
func wantLine(t testing.TB, what, text, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	for _, l := range strings.Split(text, "\n") {
		if rx.MatchString(l) {
			return
		}
	}
	t.Errorf("%s: no line matches %q in:\n%s", what, re, text)
}

// wantContains fails unless text contains every sub.
func wantContains(t testing.TB, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s: %q missing in:\n%s", what, s, text)
		}
	}
}

// wantNotContains fails when text contains any sub (case-insensitive).
func wantNotContains(t testing.TB, what, text string, subs ...string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, s := range subs {
		if strings.Contains(low, strings.ToLower(s)) {
			t.Errorf("%s: must not mention %q:\n%s", what, s, text)
		}
	}
}

// auditPaths returns the request paths (query dropped) of events.
func auditPaths(events []harness.AuditEvent) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		p := e.RequestURI
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		out = append(out, p)
	}
	return out
}

// quote is regexp.QuoteMeta, short.
func quote(s string) string { return regexp.QuoteMeta(s) }

// in returns a copy of w bound to t (a subtest), sharing its folders.
func (w *world) in(t *testing.T) *world {
	c := *w
	c.t = t
	return &c
}

// crdGVR is the CustomResourceDefinition resource.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// jsonDecode decodes exactly one JSON value from s into v.
func jsonDecode(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// vmWords match any mention of VMs or limactl: a prod stack never gets one.
var vmWords = regexp.MustCompile(`(?i)\bvms?\b|limactl|create-vm|start-vm|\bphase is up\b|lima`)

// wantNoVM fails when text mentions VMs, limactl or the up phase.
func wantNoVM(t testing.TB, what, text string) {
	t.Helper()
	if m := vmWords.FindString(text); m != "" {
		t.Errorf("%s mentions %q (a prod stack never gets VMs):\n%s", what, m, text)
	}
}

// ptyRun is one run of the binary on a pseudo-terminal.
type ptyRun struct {
	code int
	// output is everything printed (stdout and stderr share the terminal),
	// control sequences removed.
	output string
	audit  [][]harness.AuditEvent
}

// runPTY runs the built nestor on a pseudo-terminal (tests/e2e/pty_driver.go:
// stdin, stdout and stderr are the terminal, so nestor is interactive) in
// the world's environment plus TERM and extra, lets interact drive it, waits
// for its exit and, as run does, proves it wrote nothing and sent only
// get/list/watch.
func (w *world) runPTY(extra []string, interact func(p *ptyProc), args ...string) ptyRun {
	w.t.Helper()
	bin := nestorBinary(w.t)
	before := w.snapshot()
	marks := make([]int, len(w.Clusters))
	for i, c := range w.Clusters {
		marks[i] = len(auditEvents(w.t, c))
	}
	env := w.env(append([]string{"TERM=xterm"}, extra...)...) // extra may set TERM: the last value wins
	p := startPTY(w.t, bin, env, args...)
	interact(p)
	r := ptyRun{code: p.wait(), output: p.output()}
	res := result{args: args, code: r.code, stdout: r.output}
	w.t.Logf("pty: %s", res)
	w.assertUnchanged(before, res)
	r.audit = make([][]harness.AuditEvent, len(w.Clusters))
	for i, c := range w.Clusters {
		r.audit[i] = auditEvents(w.t, c)[marks[i]:]
		assertReadOnlyAudit(w.t, c, r.audit[i], res)
	}
	return r
}

// wantOnlyTargetCheck fails unless events are exactly what confirming a
// target needs — GET /version and the nodes list — each at least once.
func wantOnlyTargetCheck(t testing.TB, events []harness.AuditEvent) {
	t.Helper()
	seen := map[string]bool{}
	for i, p := range auditPaths(events) {
		switch p {
		case "/version", "/api/v1/nodes":
			seen[p] = true
		default:
			t.Errorf("nestor read %s beyond the target check (version and nodes only)", events[i])
		}
	}
	if !seen["/version"] || !seen["/api/v1/nodes"] {
		t.Errorf("target check requests = %v, want /version and /api/v1/nodes", auditPaths(events))
	}
}

// answerPrompt waits (promptWait at most) for survey's prompt question on
// p, then types key at it (ptyProc.send: the keys reach survey together
// with its last cursor report, so none is lost however loaded the machine).
func answerPrompt(t testing.TB, p *ptyProc, question, key string) {
	t.Helper()
	p.expect(question, promptWait)
	p.send(key)
}

// wantNoReport checks that a run that made no report printed none: nothing
// on stdout in the text format; with -o json (or yaml), the error document
// ({format_version, error: {kind, message}}) of kind, never a report.
func wantNoReport(t testing.TB, r result, kind string) {
	t.Helper()
	if !slices.Contains(r.args, "json") {
		if r.stdout != "" {
			t.Errorf("no report expected on stdout:\n%s", r.stdout)
		}
		return
	}
	var doc struct {
		FormatVersion int `json:"format_version"`
		Error         *struct {
			Kind, Message string
		} `json:"error"`
		Plan json.RawMessage `json:"plan"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Error == nil || doc.Plan != nil {
		t.Errorf("stdout is not the error document (%v):\n%s", err, r.stdout)
		return
	}
	if doc.Error.Kind != kind || doc.Error.Message == "" {
		t.Errorf("error document %+v, want kind %s with its message", *doc.Error, kind)
	}
}

// jsonSubject is a claim's typed subject in preview's JSON document.
type jsonSubject struct {
	Kind, Name, Pool, Layer, Key, Text string
}

func (s jsonSubject) String() string { return s.Text }

// jsonClaim is an entry of plan.unknowns or plan.waiting: its subject, the
// reason code of an unknown, and its words.
type jsonClaim struct {
	Subject jsonSubject `json:"subject"`
	Reason  string      `json:"reason"`
	Message string      `json:"message"`
}

// String is the claim's one line, as the text view prints it.
func (c jsonClaim) String() string { return c.Subject.Text + ": " + c.Message }
