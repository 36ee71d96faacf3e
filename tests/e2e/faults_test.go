package e2e

// End-to-end tests of hostile servers and programs: the built nestor reads
// the real API server (the shared dirqual-healthy cluster) through the
// fault proxy (tests/faultproxy), the provider's API through its stand-in
// (tests/scwstub) and misbehaving limactl programs
// (tests/testdata/limactl/limactl-*). Each test pins one product rule:
//
//   - a read that failed is unknown, never dropped: the layers that depend
//     on it and the claim about undeclared layers are unknown, plan.unknowns
//     is not empty, --detailed-exitcode exits 1 — never "In sync.";
//   - every read ends at the deadline (--timeout, one deadline for the
//     whole read of a stack) and at once on SIGINT/SIGTERM (exit 130);
//   - memory stays bounded whatever a server or limactl sends;
//   - an answer that contradicts itself (a repeated page, a lying total) is
//     refused;
//   - what the server answered is reported (429/503 with Retry-After is not
//     "timed out"); client-go's klog lines never reach stderr; -o json
//     prints a JSON document on stdout even when reads fail.
//
// Several of these tests fail on today's code on purpose: they assert the
// rule, not today's behaviour.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"nestor.dev/nestor/tests/faultproxy"
	"nestor.dev/nestor/tests/harness"
	"nestor.dev/nestor/tests/scwstub"
)

const (
	// faultTimeout is the --timeout of the runs under a fault.
	faultTimeout = 3 * time.Second
	// deadlineMargin is how long after --timeout a run may still end: the
	// process's start, its output and exit, on a loaded 2-core machine.
	deadlineMargin = 6 * time.Second
	// wholeReadTimeout and wholeReadMargin bound the runs that prove one
	// deadline covers the whole read of a stack: twice the timeout lies
	// beyond timeout + margin.
	wholeReadTimeout = 5 * time.Second
	wholeReadMargin  = 4 * time.Second
	// signalBound is how soon after SIGINT/SIGTERM nestor must have exited.
	signalBound = 3 * time.Second
)

// faultRig is a world whose stack dirqual reads the shared healthy dirqual
// cluster through a fault proxy (as the read-only user): the shipped
// example with its endpoint the proxy's URL and its kubeconfig the proxy's;
// with custom, two more layers that depend on one list each — cnpg-api on
// the CRD list (detect: crd_group) and registry-ns on the namespace list
// (detect: namespace).
type faultRig struct {
	*world
	proxy   *faultproxy.Proxy
	cluster *harness.Cluster
}

func newFaultRig(t *testing.T, custom bool) *faultRig {
	t.Helper()
	return newFaultRigOn(t, healthyFixture, custom)
}

// newFaultRigOn is newFaultRig reading the shared cluster of fixture.
func newFaultRigOn(t *testing.T, fixture string, custom bool) *faultRig {
	t.Helper()
	c := sharedFixtureCluster(t, fixture)
	o, err := faultproxy.ForCluster(c, harness.UserReadOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := faultproxy.StartT(t, o)
	w := newWorld(t, c)
	stack := w.dirqualStack(p.URL, "~/.kube/dirqual.config")
	if custom {
		appendLayers(t, stack, "  - name: cnpg-api\n    detect: {crd_group: postgresql.cnpg.io}\n  - name: registry-ns\n    detect: {namespace: registry}\n")
	}
	if err := p.WriteKubeconfig(filepath.Join(w.Home, ".kube", "dirqual.config")); err != nil {
		t.Fatal(err)
	}
	return &faultRig{world: w, proxy: p, cluster: c}
}

// appendLayers adds entries (YAML list items) to the layers: list that ends
// the stack file.
func appendLayers(t *testing.T, stack, entries string) {
	t.Helper()
	f, err := os.OpenFile(stack, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(entries)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// previewArgs are the arguments of a preview of the rig's stack, JSON,
// --detailed-exitcode, --timeout d.
func (r *faultRig) previewArgs(d time.Duration, human bool) []string {
	args := []string{"preview", "--stack", "dirqual", "--stacks", r.Stacks, "--detailed-exitcode", "--timeout", d.String()}
	if !human {
		args = append(args, "-o", "json")
	}
	return args
}

// bounded is one run of runBounded.
type bounded struct {
	result
	// killed: the run did not end within its limit and was killed.
	killed bool
	// maxRSS is the peak resident set size in bytes (launcher runs only).
	maxRSS int64
	// signalled is when during sent its signal (zero if it sent none);
	// ended when the process had exited.
	signalled, ended time.Time
}

// boundedOpts tune runBounded.
type boundedOpts struct {
	env []string
	// limit kills the run after that long (the test then fails).
	limit time.Duration
	// rusage runs nestor under the benchmarks' launcher
	// (tests/bench/cmd/nestor-rusage) to measure its peak RSS.
	rusage bool
	// during, when set, runs beside the process; the time it returns (if
	// not zero) is when it signalled the process.
	during func(p *os.Process) time.Time
}

// runBounded runs the built nestor in w as world.run does (cwd Root, stdin
// /dev/null, the world's environment plus o.env; then the never-writes
// checks: files unchanged, only get/list/watch in the audit log), but kills
// it after o.limit and reports that instead of failing at once, so a test
// of a deadline names the time it took.
func runBounded(w *world, o boundedOpts, args ...string) bounded {
	w.t.Helper()
	bin := nestorBinary(w.t)
	before := w.snapshot()
	marks := make([]int, len(w.Clusters))
	for i, c := range w.Clusters {
		marks[i] = len(auditEvents(w.t, c))
	}
	argv := append([]string{bin}, args...)
	var report *os.File
	if o.rusage {
		argv = append([]string{rusageLauncher(w.t), "--"}, argv...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = w.Root
	cmd.Env = w.env(o.env...)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		w.t.Fatal(err)
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second // a child of nestor holding our pipes must not hold the test
	// Its own process group, killed whole at the limit: nestor under the
	// launcher, and limactl's children, go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if o.rusage {
		var wr *os.File
		report, wr, err = os.Pipe()
		if err != nil {
			w.t.Fatal(err)
		}
		defer report.Close()
		cmd.ExtraFiles = []*os.File{wr}
		defer wr.Close()
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	if len(cmd.ExtraFiles) > 0 {
		cmd.ExtraFiles[0].Close()
	}
	var b bounded
	var dwg sync.WaitGroup
	if o.during != nil {
		dwg.Add(1)
		go func() { defer dwg.Done(); b.signalled = o.during(cmd.Process) }()
	}
	err = cmd.Wait()
	b.ended = time.Now()
	took := b.ended.Sub(start)
	dwg.Wait()
	b.result = result{args: args, stdout: stdout.String(), stderr: stderr.String(), took: took}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		b.killed = true
		b.code = -1
	case err == nil:
	case errors.As(err, &ee):
		b.code = ee.ExitCode()
	default:
		w.t.Fatalf("run nestor: %v", err)
	}
	if o.rusage {
		line, _ := io.ReadAll(report)
		var wall, rss, cpu int64
		var code int
		if _, err := fmt.Sscan(string(line), &wall, &rss, &code, &cpu); err == nil {
			b.maxRSS = rss * 1024
			b.code = code
		} else if !b.killed {
			w.t.Errorf("no report from the rusage launcher (%q)", line)
		}
	}
	logged := b.result
	logged.stdout, logged.stderr = clip(logged.stdout), clip(logged.stderr)
	w.t.Logf("%s", logged)
	if b.killed {
		w.t.Errorf("nestor %s did not end within %v: killed", strings.Join(args, " "), o.limit)
	}
	w.assertUnchanged(before, b.result)
	b.audit = make([][]harness.AuditEvent, len(w.Clusters))
	for i, c := range w.Clusters {
		b.audit[i] = auditEvents(w.t, c)[marks[i]:]
		assertReadOnlyAudit(w.t, c, b.audit[i], b.result)
	}
	return b
}

// clip keeps the first 16 KB of s, for the test log.
func clip(s string) string {
	const max = 16 << 10
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("\n… (%d bytes more)\n", len(s)-max)
}

var (
	rusageOnce sync.Once
	rusagePath string
	rusageErr  error
)

// rusageLauncher builds tests/bench/cmd/nestor-rusage once (beside the
// nestor binary, removed with it) and returns its path.
func rusageLauncher(t testing.TB) string {
	t.Helper()
	bin := nestorBinary(t)
	rusageOnce.Do(func() {
		rusagePath = filepath.Join(filepath.Dir(bin), "nestor-rusage")
		cmd := exec.Command("go", "build", "-o", rusagePath, "./tests/bench/cmd/nestor-rusage")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			rusageErr = fmt.Errorf("go build nestor-rusage: %v\n%s", err, out)
		}
	})
	if rusageErr != nil {
		t.Fatal(rusageErr)
	}
	return rusagePath
}

// preview runs the rig's stack with -o json and --detailed-exitcode under
// the fault set, bounded by --timeout d + deadlineMargin (a run beyond it
// fails the test), and decodes the document.
func (r *faultRig) preview(t *testing.T, d time.Duration) (bounded, previewDoc) {
	t.Helper()
	b := runBounded(r.in(t), boundedOpts{limit: d + deadlineMargin + 5*time.Second}, r.previewArgs(d, false)...)
	wantWithin(t, b, d+deadlineMargin)
	return b, decodePreview(t, b.result)
}

// wantWithin fails when the run took longer than bound.
func wantWithin(t *testing.T, b bounded, bound time.Duration) {
	t.Helper()
	if b.took > bound {
		t.Errorf("the run took %v, more than %v (a deadline of its own must end it)", b.took.Round(10*time.Millisecond), bound)
	}
}

// wantUnknownRead fails unless the document says the read failed: exit 1
// under --detailed-exitcode, plan.unknowns not empty with one naming what
// (a regular expression, matched case-insensitively), summary not in sync.
func wantUnknownRead(t *testing.T, b bounded, doc previewDoc, what string) {
	t.Helper()
	if b.code != 1 {
		t.Errorf("exit %d with --detailed-exitcode, want 1 (a read failed: the plan is not known)", b.code)
	}
	if doc.Summary.InSync {
		t.Errorf("summary says in sync although a read failed: %+v", doc.Summary)
	}
	rx := regexp.MustCompile("(?i)" + what)
	for _, u := range doc.Plan.Unknowns {
		if rx.MatchString(u.String()) {
			return
		}
	}
	t.Errorf("plan.unknowns %q: none names %s (a failed read must stay unknown, never be dropped)", doc.Plan.Unknowns, what)
}

// wantLayerUnknown fails unless the declared layer name is unknown with a
// reason matching why.
func wantLayerUnknown(t *testing.T, doc previewDoc, name, why string) {
	t.Helper()
	h, reason := doc.layer(t, name)
	if h != "unknown" || !regexp.MustCompile("(?i)"+why).MatchString(reason) {
		t.Errorf("layer %s: %s (%s), want unknown naming %s", name, h, reason, why)
	}
}

// namedFault is a fault and its subtest's name.
type namedFault struct {
	name  string
	fault faultproxy.Fault
}

// listFaults are the ways a list can fail that every list is tried with;
// with silent also a list that is never answered (it costs a --timeout).
func listFaults(silent bool) []namedFault {
	fs := []namedFault{
		{"500", faultproxy.Status(500, 0)},
		{"403", faultproxy.Status(403, 0)},
		{"invalid JSON", faultproxy.InvalidJSON()},
		{"invalid protobuf", faultproxy.InvalidProtobuf()},
	}
	if silent {
		fs = append(fs, namedFault{"silent", faultproxy.Hang()})
	}
	return fs
}

// Through the untouched proxy the healthy cluster reads in sync, over
// HTTP/2, with nestor's user agent: the rig itself changes nothing.
func TestFaultsBaselineThroughTheProxy(t *testing.T) {
	r := newFaultRig(t, true)
	b, doc := r.preview(t, faultTimeout)
	wantCode(t, b.result, 0)
	if !doc.Summary.InSync || len(doc.Plan.Unknowns) != 0 {
		t.Errorf("summary %+v unknowns %q, want in sync", doc.Summary, doc.Plan.Unknowns)
	}
	for _, l := range append(dirqualLayers, "cnpg-api", "registry-ns") {
		if h, why := doc.layer(t, l); h != "healthy" {
			t.Errorf("layer %s: %s (%s), want healthy", l, h, why)
		}
	}
	n := 0
	for _, req := range r.proxy.Log() {
		if req.Path != "" {
			n++
			if req.Proto != "HTTP/2.0" || !strings.HasPrefix(req.UserAgent, nestorUA) {
				t.Errorf("request %s: %s, user agent %q; want HTTP/2.0 from nestor", req, req.Proto, req.UserAgent)
			}
		}
	}
	if n == 0 {
		t.Fatalf("nestor sent nothing through the proxy")
	}
}

// A failed CRD list: the claim that no undeclared layer runs is unknown
// (the catalog's layers are detected by their CRD groups first), even when
// every declared layer was found by its workloads — plan.unknowns names it,
// exit 1, never "In sync."; and a layer detected by its CRD group alone
// (cnpg-api) is unknown.
func TestFaultCRDListFails(t *testing.T) {
	r := newFaultRig(t, false)
	route := faultproxy.Route{Path: faultproxy.PathCRDs}
	for _, f := range listFaults(true) {
		t.Run(f.name, func(t *testing.T) {
			r.proxy.Set(route, f.fault)
			defer r.proxy.Clear(route)
			b, doc := r.preview(t, faultTimeout)
			wantUnknownRead(t, b, doc, `undeclared|CRD|CustomResourceDefinition`)
		})
	}
	t.Run("layer detected by its CRD group", func(t *testing.T) {
		rc := newFaultRig(t, true)
		rc.proxy.Set(route, faultproxy.Status(500, 0))
		_, doc := rc.preview(t, faultTimeout)
		wantLayerUnknown(t, doc, "cnpg-api", `CRD`)
	})
	t.Run("human view", func(t *testing.T) {
		r.proxy.Set(route, faultproxy.Status(500, 0))
		defer r.proxy.Clear(route)
		b := runBounded(r.in(t), boundedOpts{limit: time.Minute}, r.previewArgs(faultTimeout, true)...)
		if strings.Contains(b.stdout, "In sync.") {
			t.Errorf("the CRD list failed, yet the plan says In sync.")
		}
		if b.code != 1 {
			t.Errorf("exit %d, want 1", b.code)
		}
	})
}

// A failed StorageClass list: the default StorageClass, and so the
// backend check (backend: ceph), is unknown.
func TestFaultStorageClassListFails(t *testing.T) {
	r := newFaultRig(t, false)
	route := faultproxy.Route{Path: faultproxy.PathStorageClasses}
	for _, f := range listFaults(false) {
		t.Run(f.name, func(t *testing.T) {
			r.proxy.Set(route, f.fault)
			defer r.proxy.Clear(route)
			b, doc := r.preview(t, faultTimeout)
			if doc.Actual.Storage.Known {
				t.Errorf("storage %+v known although the StorageClass list failed", doc.Actual.Storage)
			}
			wantUnknownRead(t, b, doc, `StorageClass|storage|backend`)
		})
	}
}

// A failed namespace list: the layer detected by its namespace alone
// (registry-ns) is unknown.
func TestFaultNamespaceListFails(t *testing.T) {
	r := newFaultRig(t, true)
	route := faultproxy.Route{Path: faultproxy.PathNamespaces, Query: map[string]string{"includeObject": "None"}}
	for _, f := range listFaults(false) {
		t.Run(f.name, func(t *testing.T) {
			r.proxy.Set(route, f.fault)
			defer r.proxy.Clear(route)
			b, doc := r.preview(t, faultTimeout)
			wantLayerUnknown(t, doc, "registry-ns", `namespace`)
			wantUnknownRead(t, b, doc, `namespace`)
		})
	}
}

// Failed workload lists: every layer judged by its workloads is unknown
// (all lists failing), or the one layer whose namespace's list failed.
func TestFaultWorkloadListsFail(t *testing.T) {
	r := newFaultRig(t, false)
	all := faultproxy.Route{Path: faultproxy.PathApps}
	for _, f := range listFaults(false) {
		t.Run("all "+f.name, func(t *testing.T) {
			r.proxy.Set(all, f.fault)
			defer r.proxy.Clear(all)
			b, doc := r.preview(t, faultTimeout)
			for _, l := range []string{"cilium", "argocd", "registry"} {
				wantLayerUnknown(t, doc, l, `.`)
			}
			wantUnknownRead(t, b, doc, `argocd|workload|deployments`)
		})
	}
	t.Run("argocd deployments 403", func(t *testing.T) {
		one := faultproxy.Route{Path: "/apis/apps/v1/namespaces/argocd/deployments"}
		r.proxy.Set(one, faultproxy.Status(403, 0))
		defer r.proxy.Clear(one)
		b, doc := r.preview(t, faultTimeout)
		wantLayerUnknown(t, doc, "argocd", `forbidden`)
		if h, why := doc.layer(t, "cnpg"); h != "healthy" {
			t.Errorf("cnpg %s (%s): its own lists answered", h, why)
		}
		wantUnknownRead(t, b, doc, `argocd`)
	})
	t.Run("argocd body cut", func(t *testing.T) {
		one := faultproxy.Route{Path: "/apis/apps/v1/namespaces/argocd/"}
		r.proxy.Set(one, faultproxy.Cut(-1))
		defer r.proxy.Clear(one)
		b, doc := r.preview(t, faultTimeout)
		wantLayerUnknown(t, doc, "argocd", `.`)
		wantUnknownRead(t, b, doc, `argocd`)
	})
}

// A failed node list, however it fails, leaves the nodes unknown.
func TestFaultNodeListFails(t *testing.T) {
	r := newFaultRig(t, false)
	route := faultproxy.Route{Path: faultproxy.PathNodes}
	faults := append(listFaults(true),
		namedFault{"cut mid-body", faultproxy.Cut(-1)},
		namedFault{"GOAWAY mid-body", faultproxy.GoAway(-1)},
		namedFault{"redirect", faultproxy.Redirect("")},
	)
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			r.proxy.Set(route, f.fault)
			defer r.proxy.Clear(route)
			b, doc := r.preview(t, faultTimeout)
			if doc.Actual.Nodes.Known {
				t.Errorf("nodes known (%d) although their list failed", len(doc.Actual.Nodes.Value))
			}
			wantUnknownRead(t, b, doc, `node`)
			if f.fault.Kind == faultproxy.KindRedirect {
				wantContains(t, "nodes reason", doc.Actual.Nodes.Reason, "redirect")
				for _, req := range r.proxy.Log() {
					if req.Host == strings.TrimPrefix(r.proxy.RedirectURL, "https://") {
						t.Errorf("nestor followed the redirect: %s", req)
					}
				}
			}
		})
	}
	t.Run("proxy killed mid-read", func(t *testing.T) {
		r.proxy.Set(route, faultproxy.Kill(-1))
		defer func() {
			r.proxy.Clear(route)
			if err := r.proxy.SetConn(faultproxy.ConnNormal); err != nil {
				t.Fatal(err)
			}
		}()
		b, doc := r.preview(t, faultTimeout)
		if doc.Actual.Nodes.Known {
			t.Errorf("nodes known although the server died mid-read")
		}
		wantUnknownRead(t, b, doc, `node`)
	})
}

// A repeated page is refused, not counted twice ("8 registered" for the
// cluster's 4 nodes is the bug): the same items under a new token, or the
// same token again.
func TestFaultRepeatedPage(t *testing.T) {
	r := newFaultRig(t, false)
	nodes := faultproxy.Route{Path: faultproxy.PathNodes}
	for _, f := range []namedFault{{"same items, new token", faultproxy.RepeatItems()}, {"same token", faultproxy.RepeatToken()}} {
		t.Run("nodes "+f.name, func(t *testing.T) {
			r.proxy.Set(nodes, f.fault)
			defer r.proxy.Clear(nodes)
			b, doc := r.preview(t, faultTimeout)
			if doc.Actual.Nodes.Known {
				t.Errorf("nodes known (%d of the cluster's 4) from pages that repeat themselves: want refused, unknown", len(doc.Actual.Nodes.Value))
			}
			wantUnknownRead(t, b, doc, `node`)
			h := runBounded(r.in(t), boundedOpts{limit: time.Minute}, r.previewArgs(faultTimeout, true)...)
			wantNotContains(t, "human view", h.stdout, "8 registered")
		})
	}
	t.Run("storage classes same items", func(t *testing.T) {
		sc := faultproxy.Route{Path: faultproxy.PathStorageClasses}
		r.proxy.Set(sc, faultproxy.RepeatItems())
		defer r.proxy.Clear(sc)
		b, doc := r.preview(t, faultTimeout)
		if doc.Actual.Storage.Known {
			t.Errorf("storage %+v known from a StorageClass list that repeats its page", doc.Actual.Storage)
		}
		wantUnknownRead(t, b, doc, `StorageClass|storage`)
	})
}

// Pagination that never ends is bounded: the read ends at the deadline
// (or sooner, refused) with the nodes unknown.
func TestFaultEndlessPagination(t *testing.T) {
	r := newFaultRig(t, false)
	nodes := faultproxy.Route{Path: faultproxy.PathNodes}
	r.proxy.Set(nodes, faultproxy.EndlessPages())
	b, doc := r.preview(t, faultTimeout)
	if doc.Actual.Nodes.Known {
		t.Errorf("nodes known (%d) from endless pages", len(doc.Actual.Nodes.Value))
	}
	wantUnknownRead(t, b, doc, `node`)
	t.Logf("the proxy answered %d node pages", r.proxy.Count(nodes.Match))
}

// 429 and 503 with Retry-After are reported as what the server answered:
// client-go's retries must not turn them into "timed out".
func TestFaultRetryAfterIsReported(t *testing.T) {
	r := newFaultRig(t, false)
	for _, tc := range []struct {
		name  string
		route faultproxy.Route
		code  int
		want  string
		fact  func(previewDoc) (bool, string)
	}{
		{"nodes 503", faultproxy.Route{Path: faultproxy.PathNodes}, 503, `503|unavailable`, func(d previewDoc) (bool, string) { return d.Actual.Nodes.Known, d.Actual.Nodes.Reason }},
		{"nodes 429", faultproxy.Route{Path: faultproxy.PathNodes}, 429, `429|too many requests`, func(d previewDoc) (bool, string) { return d.Actual.Nodes.Known, d.Actual.Nodes.Reason }},
		{"storage classes 429", faultproxy.Route{Path: faultproxy.PathStorageClasses}, 429, `429|too many requests`, func(d previewDoc) (bool, string) { return d.Actual.Storage.Known, d.Actual.Storage.Reason }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.proxy.Set(tc.route, faultproxy.Status(tc.code, time.Second))
			defer r.proxy.Clear(tc.route)
			b, doc := r.preview(t, faultTimeout)
			known, reason := tc.fact(doc)
			if known {
				t.Errorf("known although every answer was %d", tc.code)
			}
			if !regexp.MustCompile("(?i)"+tc.want).MatchString(reason) || strings.Contains(reason, "timed out") {
				t.Errorf("reason %q: want what the server answered (%s), not a timeout", reason, tc.want)
			}
			wantUnknownRead(t, b, doc, tc.want)
			t.Logf("the proxy answered %d requests of %s", r.proxy.Count(tc.route.Match), tc.route)
		})
	}
}

// Every way a server can stall ends at --timeout (+ margin), with what
// could not be read unknown.
func TestFaultDeadlineBoundsEveryStall(t *testing.T) {
	r := newFaultRig(t, false)
	nodes := faultproxy.Route{Path: faultproxy.PathNodes}
	for _, tc := range []struct {
		name  string
		conn  faultproxy.ConnFault
		route faultproxy.Route
		fault faultproxy.Fault
	}{
		{name: "connection accepted, silent", conn: faultproxy.ConnSilent},
		{name: "TLS handshake stalled", conn: faultproxy.ConnStallHandshake},
		{name: "silent after the handshake", conn: faultproxy.ConnSilentAfterHandshake},
		{name: "nodes: no answer", route: nodes, fault: faultproxy.Hang()},
		{name: "nodes: body stalls mid-way", route: nodes, fault: faultproxy.Stall(-1)},
		{name: "nodes: body dripped", route: nodes, fault: faultproxy.Drip(50 * time.Millisecond)},
		{name: "every list: no answer", route: faultproxy.Route{Path: "/api"}, fault: faultproxy.Hang()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.conn != "" {
				if err := r.proxy.SetConn(tc.conn); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := r.proxy.SetConn(faultproxy.ConnNormal); err != nil {
						t.Fatal(err)
					}
				}()
			} else {
				r.proxy.Set(tc.route, tc.fault)
				defer r.proxy.Clear(tc.route)
			}
			b := runBounded(r.in(t), boundedOpts{limit: faultTimeout + deadlineMargin + 5*time.Second}, r.previewArgs(faultTimeout, false)...)
			wantWithin(t, b, faultTimeout+deadlineMargin)
			if b.code != 1 {
				t.Errorf("exit %d, want 1", b.code)
			}
			var doc previewDoc
			if jsonDecode(b.stdout, &doc) == nil && doc.Summary.InSync {
				t.Errorf("in sync although the server stalled")
			}
		})
	}
}

// One deadline for the whole read of a stack: a bench stack whose API
// server never answers and whose limactl never ends is read within
// --timeout + margin — not one --timeout for the cluster, then another for
// limactl.
func TestFaultOneDeadlineForTheWholeRead(t *testing.T) {
	r := newFaultRig(t, false)
	r.benchStack()
	if err := r.proxy.WriteKubeconfig(r.benchKubeconfig()); err != nil {
		t.Fatal(err)
	}
	useLimactl(t, r.world, "limactl-hang")
	r.proxy.Set(faultproxy.Route{}, faultproxy.Hang())
	b := runBounded(r.world, boundedOpts{limit: time.Minute, env: []string{"LIMACTL_STANDIN_PIDS=" + pidFile(t, r.world)}},
		"preview", "--stack", "bench", "--stacks", r.Stacks, "-o", "json", "--timeout", wholeReadTimeout.String())
	wantWithin(t, b, wholeReadTimeout+wholeReadMargin)
	doc := decodePreview(t, b.result)
	if doc.Actual.VMs == nil || doc.Actual.VMs.Known {
		t.Errorf("vms %+v, want unknown (limactl never answered)", doc.Actual.VMs)
	}
	if doc.Actual.Nodes.Known {
		t.Errorf("nodes known although the API server never answered")
	}
}

// SIGINT and SIGTERM during a read the server holds end nestor at once
// with exit 130 and the interruption said on stderr.
func TestFaultSignalDuringStalledRead(t *testing.T) {
	r := newFaultRig(t, false)
	nodes := faultproxy.Route{Path: faultproxy.PathNodes}
	r.proxy.Set(nodes, faultproxy.Hang())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			held := r.proxy.Count(nodes.Match)
			b := runBounded(r.in(t), boundedOpts{limit: time.Minute, during: func(p *os.Process) time.Time {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := r.proxy.Await(ctx, nodes.Match, held+1); err != nil {
					t.Error(err)
					return time.Time{}
				}
				if err := p.Signal(sig); err != nil {
					t.Error(err)
				}
				return time.Now()
			}}, r.previewArgs(60*time.Second, false)...)
			if b.code != 130 {
				t.Errorf("exit %d after %v, want 130", b.code, sig)
			}
			if b.signalled.IsZero() {
				t.Fatalf("the nodes list never reached the proxy")
			}
			wantContains(t, "stderr", b.stderr, "Interrupted")
			if d := b.ended.Sub(b.signalled); d > signalBound {
				t.Errorf("exited %v after %v, want at once (%v at most)", d.Round(time.Millisecond), sig, signalBound)
			} else {
				t.Logf("exited %v after %v", d.Round(time.Millisecond), sig)
			}
		})
	}
}

// A 200 MB one-page node list (a server that ignores limit) is read with
// bounded memory: peak RSS measured with the benchmarks' launcher.
func TestFaultHugeNodePageMemory(t *testing.T) {
	r := newFaultRig(t, false)
	nodes := faultproxy.Route{Path: faultproxy.PathNodes}
	const rows = 1_000_000
	r.proxy.Set(nodes, faultproxy.HugeTable(1000))
	size := tableSize(t, r.proxy) * (rows / 1000) // rows are of one size, give or take a digit
	r.proxy.Set(nodes, faultproxy.HugeTable(rows))
	t.Logf("the proxy's node page: %d rows, about %.0f MB", rows, float64(size)/1e6)
	const timeout = 10 * time.Second
	b := runBounded(r.world, boundedOpts{limit: timeout + deadlineMargin + 60*time.Second, rusage: true}, r.previewArgs(timeout, false)...)
	wantWithin(t, b, timeout+deadlineMargin)
	t.Logf("nestor's peak RSS reading a %.0f MB node page: %.0f MiB (exit %d, %v)", float64(size)/1e6, float64(b.maxRSS)/(1<<20), b.code, b.took.Round(time.Millisecond))
	const bound = 512 << 20
	if b.maxRSS > bound {
		t.Errorf("peak RSS %.0f MiB, above %d MiB: an answer's size must be bounded", float64(b.maxRSS)/(1<<20), bound>>20)
	}
	doc := decodePreview(t, b.result)
	if doc.Actual.Nodes.Known && len(doc.Actual.Nodes.Value) != rows {
		t.Errorf("nodes known with %d of the page's %d rows: a partial list read as the whole", len(doc.Actual.Nodes.Value), rows)
	}
}

// tableSize reads the node Table through p as nestor asks for it and
// returns its size in bytes.
func tableSize(t *testing.T, p *faultproxy.Proxy) int64 {
	t.Helper()
	hc, err := proxyClient(p)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, p.URL+faultproxy.PathNodes+"?limit=500&includeObject=None", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	req.Header.Set("User-Agent", "faults-test")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// client-go's klog lines ("E1201 12:00:00.000000 … request.go:…]
// Unexpected error when reading response body") never reach stderr.
func TestFaultKlogNeverReachesStderr(t *testing.T) {
	r := newFaultRig(t, false)
	klog := regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ |request\.go:\d+`)
	for _, tc := range []struct {
		name  string
		route faultproxy.Route
		fault faultproxy.Fault
	}{
		{"nodes cut", faultproxy.Route{Path: faultproxy.PathNodes}, faultproxy.Cut(-1)},
		{"CRDs GOAWAY", faultproxy.Route{Path: faultproxy.PathCRDs}, faultproxy.GoAway(-1)},
		{"apps cut", faultproxy.Route{Path: faultproxy.PathApps}, faultproxy.Cut(10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.proxy.Set(tc.route, tc.fault)
			defer r.proxy.Clear(tc.route)
			for _, human := range []bool{false, true} {
				b := runBounded(r.in(t), boundedOpts{limit: time.Minute}, r.previewArgs(faultTimeout, human)...)
				if m := klog.FindString(b.stderr); m != "" {
					t.Errorf("client-go's log reached stderr (%q):\n%s", m, b.stderr)
				}
			}
		})
	}
}

// -o json prints one JSON document on stdout when reads fail, the
// endpoint refuses connections or the server dies mid-read.
func TestFaultJSONOnError(t *testing.T) {
	r := newFaultRig(t, false)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) func()
	}{
		{"connection refused", func(t *testing.T) func() {
			if err := r.proxy.SetConn(faultproxy.ConnRefuse); err != nil {
				t.Fatal(err)
			}
			return func() { _ = r.proxy.SetConn(faultproxy.ConnNormal) }
		}},
		{"connection silent (timed out)", func(t *testing.T) func() {
			if err := r.proxy.SetConn(faultproxy.ConnSilent); err != nil {
				t.Fatal(err)
			}
			return func() { _ = r.proxy.SetConn(faultproxy.ConnNormal) }
		}},
		{"version 500", func(t *testing.T) func() {
			rt := faultproxy.Route{Path: faultproxy.PathVersion}
			r.proxy.Set(rt, faultproxy.Status(500, 0))
			return func() { r.proxy.Clear(rt) }
		}},
		{"killed mid-read", func(t *testing.T) func() {
			rt := faultproxy.Route{Path: faultproxy.PathCRDs}
			r.proxy.Set(rt, faultproxy.Kill(10))
			return func() { r.proxy.Clear(rt); _ = r.proxy.SetConn(faultproxy.ConnNormal) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.setup(t)()
			b := runBounded(r.in(t), boundedOpts{limit: time.Minute}, r.previewArgs(faultTimeout, false)...)
			var doc map[string]any
			if err := jsonDecode(b.stdout, &doc); err != nil {
				t.Fatalf("exit %d: stdout is not one JSON document (%v):\n%s", b.code, err, b.result)
			}
			if b.code == 0 {
				t.Errorf("exit 0 under --detailed-exitcode although the reads failed")
			}
		})
	}
}

// useLimactl puts the misbehaving limactl program name first on the
// world's PATH (as limactl).
func useLimactl(t *testing.T, w *world, name string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "tests", "testdata", "limactl", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.LimaBin, "limactl"), src, 0o755); err != nil {
		t.Fatal(err)
	}
}

// pidFile is where limactl-orphan writes its child's PID; the test ends
// that child (a process it started) when it is done.
func pidFile(t *testing.T, w *world) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(w.LimaLog), "pids")
	t.Cleanup(func() {
		b, _ := os.ReadFile(p)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return p
}

// limactl that hangs, that leaves a child holding its stdout, that floods:
// the bench stack's read ends at --timeout (+ margin) with the VMs unknown
// or known, never hung, and memory stays bounded.
func TestFaultLimactlMisbehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built nestor; skipped in -short mode")
	}
	for _, tc := range []struct {
		program string
		rusage  bool
	}{{"limactl-hang", false}, {"limactl-orphan", false}, {"limactl-flood", true}} {
		t.Run(tc.program, func(t *testing.T) {
			w := newWorld(t)
			w.benchStack()
			useLimactl(t, w, tc.program)
			b := runBounded(w, boundedOpts{limit: faultTimeout + deadlineMargin + 5*time.Second, rusage: tc.rusage,
				env: []string{"LIMACTL_STANDIN_PIDS=" + pidFile(t, w)}},
				"preview", "--stack", "bench", "--stacks", w.Stacks, "-o", "json", "--timeout", faultTimeout.String())
			wantWithin(t, b, faultTimeout+deadlineMargin)
			doc := decodePreview(t, b.result)
			if doc.Actual.VMs == nil {
				t.Fatalf("no vms fact: the read of limactl was dropped")
			}
			if tc.program == "limactl-hang" && doc.Actual.VMs.Known {
				t.Errorf("vms known although limactl never answered")
			}
			if tc.rusage {
				t.Logf("nestor's peak RSS with limactl printing 256 MiB: %.0f MiB", float64(b.maxRSS)/(1<<20))
				if b.maxRSS > 128<<20 {
					t.Errorf("peak RSS %.0f MiB, above 128 MiB: limactl's output must be read with a size bound", float64(b.maxRSS)/(1<<20))
				}
				if doc.Actual.VMs.Known {
					t.Errorf("vms known from a flood that never ended")
				}
			}
			if n := len(w.limaCalls()); n != 1 {
				t.Errorf("limactl called %d times, want once", n)
			}
		})
	}
}

// The provider's API misbehaves: GET /metadata never answers (the SDK
// calls it after each call with a context of its own), the pages lie about
// their total and ignore page, 429 with Retry-After, a body cut mid-way.
func TestFaultKapsuleProvider(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script func(kw *kapsuleWorld)
		check  func(t *testing.T, doc kapsuleDoc, r bounded)
	}{
		{"metadata never answers", func(kw *kapsuleWorld) {
			kw.stub.Script("metadata", scwstub.Answer{Hang: true})
		}, nil},
		{"metadata slow", func(kw *kapsuleWorld) {
			kw.stub.Script("metadata", scwstub.Answer{Delay: 2*faultTimeout + deadlineMargin, Body: scwstub.Metadata()})
		}, nil},
		{"nodes: lying total, page ignored", func(kw *kapsuleWorld) {
			kw.stub.Script("nodes", scwstub.Answer{Body: scwstub.Items(kw.data.Nodes...), Total: 40, IgnorePage: true})
		}, func(t *testing.T, _ kapsuleDoc, r bounded) {
			var nodes struct {
				Actual struct {
					Kapsule struct {
						Nodes fact[[]struct{ Name string }] `json:"nodes"`
					} `json:"kapsule"`
				} `json:"actual"`
			}
			if err := jsonDecode(r.stdout, &nodes); err != nil {
				t.Fatal(err)
			}
			if n := nodes.Actual.Kapsule.Nodes; n.Known {
				t.Errorf("the provider's nodes known (%d; the API has 4) from pages that repeat and a total of 40: want refused", len(n.Value))
			}
		}},
		{"cluster 429 Retry-After", func(kw *kapsuleWorld) {
			kw.stub.Script("cluster", scwstub.TooManyRequests(time.Second))
		}, func(t *testing.T, doc kapsuleDoc, _ bounded) {
			c := doc.Actual.Kapsule.Cluster
			if c.Known || !strings.Contains(c.Reason, "429") {
				t.Errorf("cluster %+v, want unknown with the 429 the provider answered", c)
			}
		}},
		{"pools body cut", func(kw *kapsuleWorld) {
			kw.stub.Script("pools", scwstub.Answer{Body: scwstub.Items(kw.data.Pools...), Cut: 40})
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kw := newKapsuleWorld(t)
			kw.stack("1.35", "~/.kube/lyneko-apps.config", "")
			tc.script(kw)
			b := runBounded(kw.world, boundedOpts{env: creds(), limit: faultTimeout + deadlineMargin + 5*time.Second},
				"preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "-o", "json", "--detailed-exitcode", "--timeout", faultTimeout.String())
			wantWithin(t, b, faultTimeout+deadlineMargin)
			doc, k := decodeKapsule(t, b.result)
			if tc.check != nil {
				tc.check(t, k, b)
			}
			if strings.HasPrefix(tc.name, "metadata slow") {
				return // a slow /metadata only has to be bounded
			}
			if b.code != 1 || doc.Summary.InSync {
				t.Errorf("exit %d, in sync %v: want 1 and not in sync (a provider read failed)", b.code, doc.Summary.InSync)
			}
		})
	}
}

// proxyClient is an HTTP/2 client trusting p's CA.
func proxyClient(p *faultproxy.Proxy) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(p.CAData) {
		return nil, errors.New("the proxy's CA is not PEM")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}, nil
}
