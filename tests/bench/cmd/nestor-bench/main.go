// Command nestor-bench measures `nestor preview -o json` side by side with
// kubectl and with the raw-API floor on generated clusters of several scales
// (method in BENCHMARKS.md). For each scale it starts a fresh test cluster
// (tests/harness), loads a realistic fixture (bench.Generate, bench.Load),
// then, against that one apiserver, runs a warm-up of each command (checking
// its output), then -runs rounds alternating the three commands (the order
// rotates every round), and reads each command's requests from the audit log
// (by user agent). It prints one table; -markdown FILE also writes it as
// Markdown. Use tests/bench/run.sh, which builds the binaries first.
//
//	nestor-bench -nestor BIN -floor BIN [-kubectl BIN] [-scales 500,2000,5000] [-runs 5]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"nestor.dev/nestor/tests/bench"
	"nestor.dev/nestor/tests/bench/floor"
	"nestor.dev/nestor/tests/harness"
)

type options struct {
	nestor, kubectl, floor string
	launcher               string
	scales                 []int
	runs, versionRuns      int
	workers                int
	allNodes               bool
	kubernetes             string
	markdown               string
	showRequests           bool
	compareGzip            bool
}

func main() {
	var o options
	var scales, declare string
	flag.StringVar(&o.nestor, "nestor", "", "nestor binary (required)")
	flag.StringVar(&o.floor, "floor", "", "nestor-floor binary (required)")
	flag.StringVar(&o.launcher, "launcher", "", "nestor-rusage binary that runs and measures each process (required)")
	flag.StringVar(&o.kubectl, "kubectl", "", "kubectl binary (default: kubectl in the test binaries folder, harness.BinDir)")
	flag.StringVar(&scales, "scales", "500,2000,5000", "comma-separated node counts; a fresh apiserver per scale")
	flag.IntVar(&o.runs, "runs", 5, "measured runs per command and scale, after one warm-up")
	flag.IntVar(&o.versionRuns, "version-runs", 20, "runs of `nestor version`")
	flag.IntVar(&o.workers, "workers", bench.DefaultWorkers, "requests in flight while loading the fixture")
	flag.StringVar(&declare, "declare-nodes", "all", "nodes the topology declares: all | control-plane")
	flag.StringVar(&o.kubernetes, "kubernetes", bench.FixtureVersion, "the Kubernetes version the topology declares (a later minor plans an upgrade: the upgrade report's reads are measured too)")
	flag.StringVar(&o.markdown, "markdown", "", "also write the result table as Markdown to this file")
	flag.BoolVar(&o.showRequests, "show-requests", true, "print the requests of nestor's warm-up run, timed from the audit log")
	flag.BoolVar(&o.compareGzip, "compare-gzip", false, "also measure the floor with gzip-compressed answers (logged, not in the table)")
	flag.Parse()
	for _, s := range strings.Split(scales, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-scales: %q is not a node count", s)
		}
		o.scales = append(o.scales, n)
	}
	switch declare {
	case "all":
		o.allNodes = true
	case "control-plane":
	default:
		fatalf("-declare-nodes: %q (want all or control-plane)", declare)
	}
	if o.nestor == "" || o.floor == "" || o.launcher == "" {
		fatalf("-nestor, -floor and -launcher are required (tests/bench/run.sh builds them)")
	}
	if o.kubectl == "" {
		dir, err := harness.BinDir()
		if err != nil {
			fatalf("%v", err)
		}
		o.kubectl = filepath.Join(dir, "kubectl")
	}
	if o.runs < 1 {
		fatalf("-runs must be at least 1")
	}
	if err := run(o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nestor-bench: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// command is one of the three measured commands.
type command struct {
	name string
	// uaPrefix selects its requests in the audit log.
	uaPrefix string
	steps    []bench.Step
	// check validates the warm-up run's stdout (one buffer per step).
	check func(outs [][]byte) (string, error)

	samples []bench.Sample
	err     error
	// requests per run, from the audit log.
	requests float64
}

// result is one scale's row.
type result struct {
	scale, namespaces, crds int
	load                    bench.LoadStats
	cmds                    []*command
	versionMedian           time.Duration
}

func run(o options) error {
	base, err := launcherBaseline(o)
	if err != nil {
		return err
	}
	logf("launcher: /bin/true reports a peak RSS of %.1f MiB (the part of every peak RSS below inherited from the launcher)", bench.MiB(base))
	var results []*result
	for _, n := range o.scales {
		r, err := runScale(o, n)
		if err != nil {
			return fmt.Errorf("scale %d: %w", n, err)
		}
		results = append(results, r)
		printTable(os.Stdout, results)
	}
	vr, err := versionRuns(o)
	if err != nil {
		logf("nestor version: %v", err)
	}
	for _, r := range results {
		r.versionMedian = vr
	}
	fmt.Println()
	printTable(os.Stdout, results)
	fmt.Printf("nestor version: median %.1f ms over %d runs\n", ms(vr), o.versionRuns)
	if o.markdown != "" {
		var b bytes.Buffer
		writeMarkdown(&b, results, vr, o)
		if err := os.WriteFile(o.markdown, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func runScale(o options, n int) (*result, error) {
	ctx := context.Background()
	logf("scale %d: starting a test cluster", n)
	c, err := harness.Start(harness.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Stop()

	fx := bench.Generate(bench.Spec{Nodes: n, Seed: 1})
	logf("scale %d: loading %d nodes, %d namespaces, %d CRDs, %d StorageClasses, %d workloads",
		n, len(fx.Nodes), len(fx.Namespaces), len(fx.CRDs), len(fx.StorageClasses),
		len(fx.Deployments)+len(fx.DaemonSets)+len(fx.StatefulSets))
	st, err := bench.Load(ctx, c.AdminConfig(), fx, o.workers)
	if err != nil {
		return nil, fmt.Errorf("load fixture: %w", err)
	}
	logf("scale %d: loaded %d objects with %d requests in %.1fs (%d workers; namespaces+StorageClasses %.1fs, CRDs+nodes+workloads %.1fs, CRDs Established %.1fs)",
		n, st.Objects, st.Requests, st.Elapsed.Seconds(), o.workers, st.First.Seconds(), st.Second.Seconds(), st.Established.Seconds())

	work, err := os.MkdirTemp("", "nestor-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	topo, err := bench.WriteTopologyAt(filepath.Join(work, "stacks"), fx, c.ReadOnly, c.URL, o.allNodes, o.kubernetes)
	if err != nil {
		return nil, err
	}
	baseEnv := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C"}
	wantNS := len(fx.Namespaces) + 3 // + default, kube-public, kube-node-lease (kube-system is in fx)

	cmds := []*command{
		{
			name: "nestor", uaPrefix: "nestor/",
			steps: []bench.Step{{Argv: []string{o.nestor, "preview", "-o", "json", "--no-input", "-f", topo}, Env: baseEnv}},
			check: func(outs [][]byte) (string, error) { return checkNestor(outs[0], fx) },
		},
		{
			name: "kubectl", uaPrefix: "kubectl/",
			steps: []bench.Step{
				{Argv: []string{o.kubectl, "--cache-dir=" + filepath.Join(work, "kubectl-cache"), "get", "nodes,namespaces,customresourcedefinitions,storageclasses", "-o", "json"}, Env: append([]string{"KUBECONFIG=" + c.ReadOnly}, baseEnv...)},
				{Argv: []string{o.kubectl, "--cache-dir=" + filepath.Join(work, "kubectl-cache"), "get", "deployments,daemonsets,statefulsets", "-A", "-o", "json"}, Env: append([]string{"KUBECONFIG=" + c.ReadOnly}, baseEnv...)},
			},
			check: func(outs [][]byte) (string, error) {
				a, err := countItems(outs[0])
				if err != nil {
					return "", err
				}
				b, err := countItems(outs[1])
				if err != nil {
					return "", err
				}
				want := len(fx.Nodes) + wantNS + len(fx.CRDs) + len(fx.StorageClasses)
				if a != want {
					return "", fmt.Errorf("first get listed %d items, want %d", a, want)
				}
				return fmt.Sprintf("%d + %d items", a, b), nil
			},
		},
		{
			name: "floor", uaPrefix: "nestor-floor/",
			steps: []bench.Step{{Argv: []string{o.floor, "-kubeconfig", c.ReadOnly}, Env: baseEnv}},
			check: func(outs [][]byte) (string, error) {
				var res floor.Result
				if err := json.Unmarshal(outs[0], &res); err != nil {
					return "", fmt.Errorf("floor output: %v", err)
				}
				if res.Items["nodes"] != len(fx.Nodes) || res.Items["namespaces"] != wantNS || res.Items["customresourcedefinitions"] != len(fx.CRDs) {
					return "", fmt.Errorf("floor read %v, want %d nodes, %d namespaces, %d CRDs", res.Items, len(fx.Nodes), wantNS, len(fx.CRDs))
				}
				return fmt.Sprintf("%v, %d requests, %.1f MiB", res.Items, res.Requests, bench.MiB(res.Bytes)), nil
			},
		},
	}

	if o.compareGzip {
		fl := *cmds[2]
		fl.name = "floor+gzip"
		fl.uaPrefix = "nestor-floor-gzip/"
		fl.steps = []bench.Step{{Argv: []string{o.floor, "-gzip", "-kubeconfig", c.ReadOnly}, Env: baseEnv}}
		cmds = append(cmds, &fl)
	}

	// Warm-up: one run each, outputs checked (kubectl fills its discovery
	// cache here, as an operator's would be).
	for _, cm := range cmds {
		outs := make([][]byte, len(cm.steps))
		var s bench.Sample
		for i, st := range cm.steps {
			var buf bytes.Buffer
			one, err := bench.RunSteps(ctx, o.launcher, []bench.Step{st}, &buf)
			s.Wall += one.Wall
			if err != nil {
				cm.err = err
				break
			}
			outs[i] = buf.Bytes()
		}
		if cm.err == nil {
			summary, err := cm.check(outs)
			cm.err = err
			if err == nil {
				logf("scale %d: warm-up %s %.3fs ok: %s", n, cm.name, s.Wall.Seconds(), summary)
			}
		}
		if cm.err != nil {
			logf("scale %d: %s does not run, left out: %v", n, cm.name, cm.err)
		}
	}
	if o.showRequests && cmds[0].err == nil {
		if _, err := c.AuditEvents("nestor/"); err != nil { // the barrier: every event is in the log
			return nil, err
		}
		tl, err := timeline(c.AuditLog, "nestor/")
		if err != nil {
			return nil, err
		}
		logf("scale %d: nestor's requests in its warm-up run (ms from its first request: received → completed):", n)
		for _, e := range tl {
			fmt.Fprintf(os.Stderr, "    %7.1f → %7.1f  %s %s -> %d\n", e.start, e.end, e.verb, shortURI(e.uri), e.code)
		}
	}

	before, err := auditCounts(c, cmds)
	if err != nil {
		return nil, err
	}
	for round := 0; round < o.runs; round++ {
		for k := range cmds {
			cm := cmds[(round+k)%len(cmds)]
			if cm.err != nil {
				continue
			}
			s, err := bench.RunSteps(ctx, o.launcher, cm.steps, nil)
			if err != nil {
				cm.err = err
				logf("scale %d: %s failed in round %d: %v", n, cm.name, round+1, err)
				continue
			}
			cm.samples = append(cm.samples, s)
		}
	}
	after, err := auditCounts(c, cmds)
	if err != nil {
		return nil, err
	}
	for i, cm := range cmds {
		if len(cm.samples) > 0 {
			cm.requests = float64(after[i]-before[i]) / float64(len(cm.samples))
		}
		var walls []string
		for _, s := range cm.samples {
			walls = append(walls, fmt.Sprintf("%.3f", s.Wall.Seconds()))
		}
		st := cm.stats()
		logf("scale %d: %s runs (s): %s; median %.3fs, peak %.0f MiB, %g requests", n, cm.name, strings.Join(walls, " "), st.wall.Seconds(), bench.MiB(st.rss), st.requests)
	}
	return &result{scale: n, namespaces: len(fx.Namespaces), crds: len(fx.CRDs), load: st, cmds: cmds}, nil
}

// timedEvent is one request of the audit log with its times relative to
// the first selected request, in milliseconds.
type timedEvent struct {
	verb, uri  string
	code       int
	start, end float64
}

// timeline reads the audit log at path and returns the completed requests
// whose user agent starts with prefix, in arrival order, timed from the
// first one's arrival (requestReceivedTimestamp → stageTimestamp).
func timeline(path, prefix string) ([]timedEvent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []timedEvent
	var t0 time.Time
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"`+prefix)) {
			continue
		}
		var ev struct {
			Stage, Verb, RequestURI, UserAgent string
			RequestReceivedTimestamp           time.Time
			StageTimestamp                     time.Time
			ResponseStatus                     struct{ Code int }
		}
		if json.Unmarshal(line, &ev) != nil || ev.Stage != "ResponseComplete" || !strings.HasPrefix(ev.UserAgent, prefix) {
			continue
		}
		if t0.IsZero() || ev.RequestReceivedTimestamp.Before(t0) {
			t0 = ev.RequestReceivedTimestamp
		}
		out = append(out, timedEvent{verb: ev.Verb, uri: ev.RequestURI, code: ev.ResponseStatus.Code,
			start: float64(ev.RequestReceivedTimestamp.UnixNano()), end: float64(ev.StageTimestamp.UnixNano())})
	}
	for i := range out {
		out[i].start = (out[i].start - float64(t0.UnixNano())) / 1e6
		out[i].end = (out[i].end - float64(t0.UnixNano())) / 1e6
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out, nil
}

// shortURI elides a continue token.
func shortURI(u string) string {
	if i := strings.Index(u, "continue="); i >= 0 {
		end := strings.IndexByte(u[i:], '&')
		if end < 0 {
			return u[:i] + "continue=…"
		}
		return u[:i] + "continue=…" + u[i+end:]
	}
	return u
}

func auditCounts(c *harness.Cluster, cmds []*command) ([]int, error) {
	out := make([]int, len(cmds))
	for i, cm := range cmds {
		evs, err := c.AuditEvents(cm.uaPrefix)
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		out[i] = len(evs)
	}
	return out, nil
}

// checkNestor validates preview's JSON: every node seen, every declared
// layer healthy, nothing unknown.
func checkNestor(out []byte, fx *bench.Fixture) (string, error) {
	var r struct {
		Actual struct {
			Nodes struct {
				Known  bool              `json:"known"`
				Reason string            `json:"reason"`
				Value  []json.RawMessage `json:"value"`
			} `json:"nodes"`
			Layers []struct {
				Name   string `json:"name"`
				Health string `json:"health"`
				Reason string `json:"reason"`
			} `json:"layers"`
		} `json:"actual"`
		Summary struct {
			Changes int  `json:"changes"`
			Unknown int  `json:"unknown"`
			InSync  bool `json:"in_sync"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return "", fmt.Errorf("preview -o json output: %v", err)
	}
	if !r.Actual.Nodes.Known || len(r.Actual.Nodes.Value) != len(fx.Nodes) {
		return "", fmt.Errorf("preview saw %d nodes (known %v: %s), want %d", len(r.Actual.Nodes.Value), r.Actual.Nodes.Known, r.Actual.Nodes.Reason, len(fx.Nodes))
	}
	healthy := 0
	var bad []string
	for _, l := range r.Actual.Layers {
		if l.Health == "healthy" {
			healthy++
		} else {
			bad = append(bad, l.Name+" "+l.Health+" ("+l.Reason+")")
		}
	}
	s := fmt.Sprintf("%d nodes, %d/%d layers healthy, %d changes, %d unknown, in_sync %v",
		len(r.Actual.Nodes.Value), healthy, len(r.Actual.Layers), r.Summary.Changes, r.Summary.Unknown, r.Summary.InSync)
	if len(bad) > 0 {
		s += "; not healthy: " + strings.Join(bad, ", ")
	}
	return s, nil
}

func countItems(b []byte) (int, error) {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return 0, fmt.Errorf("kubectl output: %v", err)
	}
	return len(l.Items), nil
}

// launcherBaseline is the median peak RSS the launcher reports for
// /bin/true: what any measured process inherits from it, at most.
func launcherBaseline(o options) (int64, error) {
	var rss []int
	for i := 0; i < 5; i++ {
		s, err := bench.RunSteps(context.Background(), o.launcher, []bench.Step{{Argv: []string{"/bin/true"}}}, io.Discard)
		if err != nil {
			return 0, err
		}
		rss = append(rss, int(s.MaxRSS))
	}
	sort.Ints(rss)
	return int64(rss[len(rss)/2]), nil
}

func versionRuns(o options) (time.Duration, error) {
	var walls []time.Duration
	st := []bench.Step{{Argv: []string{o.nestor, "version"}, Env: []string{"PATH=/usr/bin:/bin"}}}
	for i := 0; i < o.versionRuns+1; i++ {
		s, err := bench.RunSteps(context.Background(), o.launcher, st, io.Discard)
		if err != nil {
			return 0, err
		}
		if i > 0 { // the first run warms the page cache
			walls = append(walls, s.Wall)
		}
	}
	return bench.Median(walls), nil
}

// stats of one command at one scale.
type stats struct {
	ok       bool
	wall     time.Duration
	rss      int64
	requests float64
}

func (cm *command) stats() stats {
	if len(cm.samples) == 0 {
		return stats{}
	}
	var walls []time.Duration
	var rss []int
	for _, s := range cm.samples {
		walls = append(walls, s.Wall)
		rss = append(rss, int(s.MaxRSS))
	}
	sort.Ints(rss)
	return stats{ok: true, wall: bench.Median(walls), rss: int64(rss[len(rss)/2]), requests: cm.requests}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func cell(s stats) []string {
	if !s.ok {
		return []string{"n/a", "n/a", "n/a"}
	}
	return []string{fmt.Sprintf("%.3f", s.wall.Seconds()), fmt.Sprintf("%.0f", bench.MiB(s.rss)), fmt.Sprintf("%g", s.requests)}
}

func ratio(a, b stats) string {
	if !a.ok || !b.ok || b.wall == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", a.wall.Seconds()/b.wall.Seconds())
}

func rows(results []*result) [][]string {
	var out [][]string
	for _, r := range results {
		n, k, f := r.cmds[0].stats(), r.cmds[1].stats(), r.cmds[2].stats()
		row := []string{strconv.Itoa(r.scale)}
		row = append(row, cell(n)...)
		row = append(row, cell(k)...)
		row = append(row, cell(f)...)
		row = append(row, ratio(n, k), ratio(n, f))
		out = append(out, row)
	}
	return out
}

var header = []string{"nodes", "nestor s", "MiB", "req", "kubectl s", "MiB", "req", "floor s", "MiB", "req", "nestor/kubectl", "nestor/floor"}

func printTable(w io.Writer, results []*result) {
	all := append([][]string{header}, rows(results)...)
	width := make([]int, len(header))
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range all {
		for i, c := range r {
			fmt.Fprintf(w, "%*s  ", width[i], c)
		}
		fmt.Fprintln(w)
	}
}

func writeMarkdown(w io.Writer, results []*result, version time.Duration, o options) {
	fmt.Fprintf(w, "Measured %s on %d cores (%s/%s, %s), %d runs per command after one warm-up, medians; topology declares %s nodes.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), o.runs,
		map[bool]string{true: "all", false: "the control-plane"}[o.allNodes])
	fmt.Fprintln(w, "| nodes | namespaces | CRDs | load (s) | nestor s | MiB | req | kubectl s | MiB | req | floor s | MiB | req | nestor/kubectl | nestor/floor |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for i, row := range rows(results) {
		r := results[i]
		cells := append([]string{row[0], strconv.Itoa(r.namespaces), strconv.Itoa(r.crds), fmt.Sprintf("%.1f", r.load.Elapsed.Seconds())}, row[1:]...)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(w, "\n`nestor version`: median %.1f ms over %d runs.\n", ms(version), o.versionRuns)
}
