// Command nestor-net-bench measures `nestor preview` and `nestor fleet` as
// operators run them: the clusters tens of milliseconds away, their CPU not
// this machine's (method and results in BENCHMARKS.md, "fleet over the
// network"). Use tests/bench/net.sh, which builds the binaries first.
//
// It starts -servers test clusters (tests/harness) and loads each with the
// fixture of -nodes nodes (bench.Generate, bench.Load). In front of each it
// puts a latency proxy (bench.LatencyProxy on 127.0.0.2, every byte delayed
// half of -rtt each way, TLS passed through), and the stacks' kubeconfigs
// and endpoint: point at the proxies. It records, once per server, every
// answer one preview gets (bench.StandIn recording, then a second preview
// replayed from it with no miss), so that the caching stand-ins can later
// play -standin-stacks clusters at almost no cost to this machine.
//
// Then it prints:
//
//   - the sequential round trips of one preview: its median wall time at
//     each RTT of -rtts, the slope of wall time over RTT (round trips) and
//     the intercept (the time that is not the network's), against the real
//     server and against a stand-in, with the TCP handshake free (loopback)
//     and paid (bench.LatencyProxy.SetConnectRTT);
//   - for each count of -stacks (real servers, stack i on server i mod
//     -servers) and for -standin-stacks stand-ins (one each): the median over
//     -runs rounds of `nestor fleet -o json` (default --parallel),
//     `nestor fleet -o json --parallel P` and the slowest single
//     `nestor preview -o json --no-input` of the round, their ratios, peak
//     RSS (the rusage launcher), how long after the command started its
//     first connection reached a proxy (and its last), how many it made,
//     and the fleet's CPU time: nestor's (the launcher's rusage), the real
//     servers' (/proc/PID/stat) and this process's (proxies and stand-ins),
//     whose sum divided by the cores is the shortest wall time this machine
//     allows (the CPU floor);
//   - the load average before and after each part.
//
// Fleet's document is checked every run (every stack in sync); a request a
// stand-in lacks is answered 404, counted and printed, and fails the run.
//
//	nestor-net-bench -nestor BIN -launcher BIN [-servers 4] [-nodes 500] [-stacks 8,32]
//	    [-standin-stacks 32] [-rtt 40ms] [-rtts 0,40ms,80ms] [-parallel 32] [-runs 7]
package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"nestor.dev/nestor/tests/bench"
	"nestor.dev/nestor/tests/harness"
)

type options struct {
	nestor, launcher string
	servers, nodes   int
	counts           []int
	standins         int
	rtt              time.Duration
	rtts             []time.Duration
	parallel         int
	waveRTT          time.Duration
	runs, rttRuns    int
	markdown         string
	profile          string
	hold             bool
}

func main() {
	var o options
	var counts, rtts string
	flag.StringVar(&o.nestor, "nestor", "", "nestor binary (required)")
	flag.StringVar(&o.launcher, "launcher", "", "nestor-rusage binary (required)")
	flag.IntVar(&o.servers, "servers", 4, "test clusters (kube-apiserver + etcd) to spread the prod stacks over")
	flag.IntVar(&o.nodes, "nodes", 500, "nodes of each cluster's fixture")
	flag.StringVar(&counts, "stacks", "8,32", "comma-separated prod stack counts on the real servers (empty: none)")
	flag.IntVar(&o.standins, "standin-stacks", 32, "prod stacks on caching stand-ins, one stand-in each (0: none)")
	flag.DurationVar(&o.rtt, "rtt", 40*time.Millisecond, "round-trip time the proxies add for the fleet table")
	flag.StringVar(&rtts, "rtts", "0,40ms,80ms", "comma-separated round-trip times of the round-trip estimate (at least two)")
	flag.DurationVar(&o.waveRTT, "wave-rtt", 200*time.Millisecond, "round-trip time of the one preview whose requests are shown in waves (stand-in; 0: none)")
	flag.IntVar(&o.parallel, "parallel", 32, "fleet's --parallel of the second fleet column")
	flag.IntVar(&o.runs, "runs", 7, "measured rounds per row, after one warm-up")
	flag.IntVar(&o.rttRuns, "rtt-runs", 7, "previews per RTT of the round-trip estimate, after one warm-up")
	flag.StringVar(&o.markdown, "markdown", "", "also write the tables as Markdown to this file")
	flag.BoolVar(&o.hold, "hold", false, "after the stand-in row, keep the stand-ins serving and print the fleet command that reads them, until interrupted (to experiment by hand)")
	flag.StringVar(&o.profile, "profile", "", "after the stand-in row, write CPU and heap profiles and execution traces of -runs more fleet runs each on the stand-ins into this folder (cpu-K.pprof, heap-K.pprof, trace-K.pprof; nestor's --profile)")
	flag.Parse()
	for _, s := range strings.Split(counts, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n < 1 {
			fatalf("-stacks: %q is not a count", s)
		}
		o.counts = append(o.counts, n)
	}
	for _, s := range strings.Split(rtts, ",") {
		s = strings.TrimSpace(s)
		if s == "0" {
			s = "0s"
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			fatalf("-rtts: %q is not a duration", s)
		}
		o.rtts = append(o.rtts, d)
	}
	if len(o.rtts) < 2 || o.rtts[0] == o.rtts[len(o.rtts)-1] {
		fatalf("-rtts needs at least two different round-trip times")
	}
	if o.nestor == "" || o.launcher == "" {
		fatalf("-nestor and -launcher are required (tests/bench/net.sh builds them)")
	}
	if o.servers < 1 || o.runs < 1 || o.rttRuns < 1 || o.parallel < 1 {
		fatalf("-servers, -runs, -rtt-runs and -parallel must be at least 1")
	}
	if err := run(o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nestor-net-bench: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nestor-net-bench: "+format+"\n", args...)
}

// server is one real test cluster with its fixture, certificates, proxy and
// recording.
type server struct {
	c     *harness.Cluster
	fx    *bench.Fixture
	certs bench.ServerCerts
	proxy *bench.LatencyProxy
	rec   *bench.Recording
}

// endpoint is where a stack points: a proxy, and what is behind it.
type endpoint struct {
	kubeconfig, url string
	fx              *bench.Fixture
	proxy           *bench.LatencyProxy
	standin         *bench.StandIn
}

type env struct {
	o     options
	work  string
	env   []string
	md    bytes.Buffer
	loads []string
	rt    []string // the round-trip table: header, then a line per series
	waves string   // one preview's requests by wave
}

// load notes the load average (/proc/loadavg: 1, 5 and 15 minutes) at a
// point of the run, for the report: the machine is shared.
func (e *env) load(at string) {
	b, err := os.ReadFile("/proc/loadavg")
	la := "unknown (" + fmt.Sprint(err) + ")"
	if err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			la = strings.Join(f[:3], " ")
		}
	}
	logf("load average at %s: %s", at, la)
	e.loads = append(e.loads, at+": "+la)
}

func run(o options) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "nestor-net-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	e := &env{o: o, work: work, env: []string{"HOME=" + filepath.Join(work, "home"), "PATH=/usr/bin:/bin", "LANG=C"}}
	e.load("start")
	fmt.Fprintf(&e.md, "%d servers × %d nodes on loopback, each behind a latency proxy; %d CPUs; runs %d (round-trip estimate: %d per RTT), medians, after one warm-up.\n\n",
		o.servers, o.nodes, runtime.NumCPU(), o.runs, o.rttRuns)

	servers := make([]*server, o.servers)
	defer func() {
		for _, s := range servers {
			if s != nil {
				if s.proxy != nil {
					s.proxy.Close()
				}
				s.c.Stop()
			}
		}
	}()
	for i := range servers {
		logf("server %d/%d: starting and loading %d nodes", i+1, o.servers, o.nodes)
		c, err := harness.Start(harness.Options{})
		if err != nil {
			return err
		}
		s := &server{c: c}
		servers[i] = s
		s.fx = bench.Generate(bench.Spec{Nodes: o.nodes, Seed: uint64(i + 1)})
		if _, err := bench.Load(ctx, c.AdminConfig(), s.fx, bench.DefaultWorkers); err != nil {
			return fmt.Errorf("server %d: load: %w", i+1, err)
		}
		if s.certs, err = bench.ClusterCerts(c); err != nil {
			return err
		}
		if s.proxy, err = bench.StartLatencyProxy("127.0.0.2:0", hostPort(c.URL), o.rtt/2); err != nil {
			return err
		}
		if err := e.record(ctx, i, s); err != nil {
			return err
		}
	}
	real := make([]endpoint, o.servers)
	for i, s := range servers {
		real[i] = endpoint{kubeconfig: filepath.Join(work, fmt.Sprintf("kubeconfig-proxy%d", i)), url: "https://" + s.proxy.Addr, fx: s.fx, proxy: s.proxy}
		if err := s.c.WriteKubeconfig(real[i].kubeconfig, harness.IdentityReadOnly, real[i].url); err != nil {
			return err
		}
	}

	e.load("round-trip estimate, real server")
	if err := e.roundTrips(ctx, "real API server", real[0]); err != nil {
		return err
	}
	var rows []fleetRow
	for _, n := range o.counts {
		e.load(fmt.Sprintf("%d stacks, real servers", n))
		eps := make([]endpoint, n)
		for i := range eps {
			eps[i] = real[i%len(real)]
		}
		r, err := e.fleet(ctx, fmt.Sprintf("real-%d", n), "real servers", eps, serverPIDs(servers))
		if err != nil {
			return err
		}
		rows = append(rows, r)
		printRows(os.Stdout, rows, o.parallel)
	}

	if o.standins > 0 {
		// The stand-ins' kubeconfigs are written while the clusters still
		// run (WriteKubeconfig needs only their certificates); then the
		// clusters stop, so that nothing else uses the CPU.
		stand := make([]endpoint, o.standins)
		for i := range stand {
			s := servers[i%len(servers)]
			si, err := bench.StartStandIn("127.0.0.1:0", s.certs, s.rec, nil)
			if err != nil {
				return err
			}
			defer si.Close()
			p, err := bench.StartLatencyProxy("127.0.0.2:0", hostPort(si.URL), o.rtt/2)
			if err != nil {
				return err
			}
			defer p.Close()
			stand[i] = endpoint{kubeconfig: filepath.Join(work, fmt.Sprintf("kubeconfig-standin%d", i)), url: "https://" + p.Addr, fx: s.fx, proxy: p, standin: si}
			if err := s.c.WriteKubeconfig(stand[i].kubeconfig, harness.IdentityReadOnly, stand[i].url); err != nil {
				return err
			}
		}
		for _, s := range servers {
			s.proxy.Close()
			s.proxy = nil
			s.c.Stop()
		}
		e.load("real servers stopped; round-trip estimate, stand-in")
		if err := e.roundTrips(ctx, "stand-in", stand[0]); err != nil {
			return err
		}
		e.load(fmt.Sprintf("%d stacks, stand-ins", o.standins))
		r, err := e.fleet(ctx, fmt.Sprintf("standin-%d", o.standins), "stand-ins", stand, nil)
		if err != nil {
			return err
		}
		rows = append(rows, r)
		printRows(os.Stdout, rows, o.parallel)
		standinStacks := filepath.Join(e.work, fmt.Sprintf("stacks-standin-%d", o.standins))
		if o.hold {
			e.hold(standinStacks)
		}
		if o.profile != "" {
			if err := e.profileFleet(ctx, standinStacks, o.standins); err != nil {
				return err
			}
		}
		misses, keys := 0, []string{}
		var served int64
		for _, ep := range stand {
			n, k := ep.standin.Misses()
			misses += n
			keys = append(keys, k...)
			served += ep.standin.Served()
		}
		logf("stand-ins: %d answers served, %d requests not in the recording", served, misses)
		if misses > 0 {
			return fmt.Errorf("the stand-ins lacked %d answers (the recording does not cover what nestor asked): %s", misses, strings.Join(keys, "; "))
		}
	}
	fmt.Fprintf(&e.md, "One preview, medians of its wall time at each RTT; slope = (wall at b − wall at a) / (b − a), least squares over all the RTTs (the two ends in brackets):\n\n%s\n\n%s\nFleet and previews at %v RTT:\n", strings.Join(e.rt, "\n"), e.waves, o.rtt)
	writeRows(&e.md, rows, o)
	e.load("end")
	fmt.Fprintf(&e.md, "\nLoad average (1, 5, 15 min): %s.\n", strings.Join(e.loads, "; "))
	if o.markdown != "" {
		return os.WriteFile(o.markdown, e.md.Bytes(), 0o644)
	}
	return nil
}

// record records server s's answers to one preview through a recording
// stand-in, then checks that a second preview replays from it with no
// miss, and keeps the recording.
func (e *env) record(ctx context.Context, i int, s *server) error {
	up, err := bench.UpstreamFor(s.c)
	if err != nil {
		return err
	}
	s.rec = bench.NewRecording()
	rs, err := bench.StartStandIn("127.0.0.1:0", s.certs, s.rec, up)
	if err != nil {
		return err
	}
	defer rs.Close()
	ep := endpoint{kubeconfig: filepath.Join(e.work, fmt.Sprintf("kubeconfig-recorder%d", i)), url: rs.URL, fx: s.fx}
	if err := s.c.WriteKubeconfig(ep.kubeconfig, harness.IdentityReadOnly, ep.url); err != nil {
		return err
	}
	dir := filepath.Join(e.work, fmt.Sprintf("record%d", i))
	names, err := writeStacks(dir, []endpoint{ep})
	if err != nil {
		return err
	}
	before, err := s.c.AuditEvents("nestor/")
	if err != nil {
		return err
	}
	if _, err := e.preview(ctx, dir, names[0]); err != nil {
		return fmt.Errorf("record server %d: %w", i+1, err)
	}
	after, err := s.c.AuditEvents("nestor/")
	if err != nil {
		return err
	}
	rs.Freeze()
	if _, err := e.preview(ctx, dir, names[0]); err != nil {
		return fmt.Errorf("replay server %d's recording: %w", i+1, err)
	}
	if n, keys := rs.Misses(); n > 0 {
		return fmt.Errorf("server %d: a second preview asked for %d requests the first did not: %s", i+1, n, strings.Join(keys, "; "))
	}
	logf("server %d: recorded %d answers (%d requests in the audit log), a second preview replayed %d, no miss",
		i+1, s.rec.Len(), len(after)-len(before), rs.Served())
	if i == 0 {
		fmt.Fprintf(&e.md, "One preview sends %d requests (%d in the API server's audit log), %d distinct; the recording replays a second preview with no miss.\n\n",
			rs.Forwarded(), len(after)-len(before), s.rec.Len())
	}
	return nil
}

func (e *env) preview(ctx context.Context, dir, name string) (bench.Sample, error) {
	return bench.RunSteps(ctx, e.o.launcher, []bench.Step{{Argv: []string{e.o.nestor, "preview", "-o", "json", "--no-input", "--stacks", dir, "--stack", name}, Env: e.env}}, nil)
}

// fleetRun runs fleet over dir (parallel 0: its default) and checks its
// document.
func (e *env) fleetRun(ctx context.Context, dir string, n, parallel int) (bench.Sample, error) {
	argv := []string{e.o.nestor, "fleet", "-o", "json", "--stacks", dir}
	if parallel > 0 {
		argv = append(argv, "--parallel", fmt.Sprint(parallel))
	}
	var out bytes.Buffer
	s, err := bench.RunSteps(ctx, e.o.launcher, []bench.Step{{Argv: argv, Env: e.env}}, &out)
	if err != nil {
		return s, err
	}
	if _, err := bench.CheckFleet(out.Bytes(), n); err != nil {
		return s, err
	}
	return s, nil
}

// profileFleet runs fleet over dir -runs times with each of --profile
// cpu, heap and trace, each run writing its profile into -profile
// (cpu-K.pprof, heap-K.pprof, trace-K.pprof; `go tool pprof -proto` merges
// the first two kinds, `go tool trace` reads the third). The profiled runs
// are not measured.
func (e *env) profileFleet(ctx context.Context, dir string, n int) error {
	if err := os.MkdirAll(e.o.profile, 0o755); err != nil {
		return err
	}
	for _, kind := range []string{"cpu", "heap", "trace"} {
		for k := 1; k <= e.o.runs; k++ {
			out := filepath.Join(e.o.profile, fmt.Sprintf("%s-%d.pprof", kind, k))
			argv := []string{e.o.nestor, "fleet", "-o", "json", "--stacks", dir, "--profile", kind, "--profile-output", out}
			var doc bytes.Buffer
			if _, err := bench.RunSteps(ctx, e.o.launcher, []bench.Step{{Argv: argv, Env: e.env}}, &doc); err != nil {
				return fmt.Errorf("profiled fleet: %w", err)
			}
			if _, err := bench.CheckFleet(doc.Bytes(), n); err != nil {
				return fmt.Errorf("profiled fleet: %w", err)
			}
		}
	}
	logf("profiles of %d fleet runs on the stand-ins in %s", e.o.runs, e.o.profile)
	return nil
}

// hold prints the command that runs the fleet of dir on the stand-ins,
// with the environment the bench runs it with, and returns when the
// process is interrupted (SIGINT or SIGTERM).
func (e *env) hold(dir string) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	logf("stand-ins serving until interrupted; their fleet:\n  env -i %s %s fleet --stacks %s", strings.Join(e.env, " "), e.o.nestor, dir)
	<-stop
}

// writeStacks writes one prod stack per endpoint into dir (prodNN: the
// fixture's topology, every node declared, kubeconfig: and endpoint: the
// endpoint's) and returns their names.
func writeStacks(dir string, eps []endpoint) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for i, ep := range eps {
		name := fmt.Sprintf("prod%02d", i)
		text := strings.Replace(string(bench.TopologyYAML(ep.fx, ep.kubeconfig, ep.url, true)), "name: "+bench.StackName+"\n", "name: "+name+"\n", 1)
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(text), 0o644); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// connections are the proxies' accepts during one command, relative to its
// start.
type connections struct {
	first, last time.Duration
	count       int
}

// accepted returns the accepts of proxies since start (each proxy counted
// once however many endpoints share it).
func accepted(proxies []*bench.LatencyProxy, start time.Time) connections {
	var c connections
	seen := map[*bench.LatencyProxy]bool{}
	for _, p := range proxies {
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, t := range p.Accepts() {
			d := t.Sub(start)
			if c.count == 0 || d < c.first {
				c.first = d
			}
			c.last = max(c.last, d)
			c.count++
		}
	}
	return c
}

func resetAccepts(proxies []*bench.LatencyProxy) {
	for _, p := range proxies {
		p.ResetAccepts()
	}
}

// roundTrips measures one preview of ep's stack at each -rtts RTT (the
// RTTs alternating within each round), with the TCP handshake free and
// paid, and prints the slope and intercept of its median wall time.
func (e *env) roundTrips(ctx context.Context, label string, ep endpoint) error {
	o := e.o
	dir := filepath.Join(e.work, "single-"+strings.ReplaceAll(label, " ", "-"))
	names, err := writeStacks(dir, []endpoint{ep})
	if err != nil {
		return err
	}
	defer ep.proxy.SetOneWay(o.rtt / 2)
	defer ep.proxy.SetConnectRTT(false)
	if len(e.rt) == 0 {
		var h strings.Builder
		h.WriteString("| server | TCP handshake |")
		for _, r := range o.rtts {
			fmt.Fprintf(&h, " wall at %v RTT |", r)
		}
		fmt.Fprintf(&h, " sequential round trips (slope) | intercept | first connection after start |\n|---|---|%s---|---|---|", strings.Repeat("---:|", len(o.rtts)))
		fmt.Println(h.String())
		e.rt = append(e.rt, h.String())
	}
	for _, connect := range []bool{false, true} {
		ep.proxy.SetConnectRTT(connect)
		walls := make([][]time.Duration, len(o.rtts))
		var firsts []time.Duration
		for round := 0; round <= o.rttRuns; round++ {
			for k := range o.rtts {
				j := (k + round) % len(o.rtts)
				ep.proxy.SetOneWay(o.rtts[j] / 2)
				resetAccepts([]*bench.LatencyProxy{ep.proxy})
				start := time.Now()
				s, err := e.preview(ctx, dir, names[0])
				if err != nil {
					return err
				}
				if round > 0 {
					walls[j] = append(walls[j], s.Wall)
					firsts = append(firsts, accepted([]*bench.LatencyProxy{ep.proxy}, start).first)
				}
			}
		}
		med := make([]time.Duration, len(o.rtts))
		for j := range walls {
			med[j] = bench.Median(walls[j])
		}
		slope, intercept := fit(o.rtts, med)
		hs := "free (loopback)"
		if connect {
			hs = "paid (1 RTT per connection)"
		}
		var cells []string
		for j := range med {
			cells = append(cells, fmt.Sprintf("%.0f ms", ms(med[j])))
		}
		pair := float64(med[len(med)-1]-med[0]) / float64(o.rtts[len(o.rtts)-1]-o.rtts[0])
		line := fmt.Sprintf("| %s | %s | %s | %.2f (%v→%v: %.2f) | %.0f ms | %.1f ms |", label, hs, strings.Join(cells, " | "), slope,
			o.rtts[0], o.rtts[len(o.rtts)-1], pair, ms(intercept), ms(bench.Median(firsts)))
		fmt.Println(line)
		e.rt = append(e.rt, line)
	}
	if ep.standin != nil && o.waveRTT > 0 {
		ep.proxy.SetOneWay(o.waveRTT / 2)
		ep.standin.StartLog()
		start := time.Now()
		s, err := e.preview(ctx, dir, names[0])
		arrivals := ep.standin.StopLog()
		if err != nil {
			return err
		}
		e.waves = fmt.Sprintf("The requests of one preview (%s) at %v RTT, TCP handshake paid, by wave (a wave starts after a gap of more than a third of the RTT); times from the process's start, as they reached the stand-in; wall %.0f ms:\n\n%s",
			label, o.waveRTT, ms(s.Wall), waves(arrivals, start, o.waveRTT))
		fmt.Println(e.waves)
	}
	return nil
}

// waves groups arrivals into the waves of requests a round trip lets
// through (a gap longer than rtt/3 starts a new one) and renders them, one
// line each: when the wave began (from start), how many requests, and of
// which resources (the last segment of the path).
func waves(arrivals []bench.Arrival, start time.Time, rtt time.Duration) string {
	var b strings.Builder
	for i := 0; i < len(arrivals); {
		j := i + 1
		for j < len(arrivals) && arrivals[j].At.Sub(arrivals[j-1].At) <= rtt/3 {
			j++
		}
		count := map[string]int{}
		var order []string
		for _, a := range arrivals[i:j] {
			path := strings.Fields(a.Key)[1]
			path = path[:strings.IndexByte(path+"?", '?')]
			res := path[strings.LastIndexByte(path, '/')+1:]
			if count[res] == 0 {
				order = append(order, res)
			}
			count[res]++
		}
		var parts []string
		for _, r := range order {
			parts = append(parts, fmt.Sprintf("%s ×%d", r, count[r]))
		}
		fmt.Fprintf(&b, "* %.0f ms: %d requests (%s)\n", ms(arrivals[i].At.Sub(start)), j-i, strings.Join(parts, ", "))
		i = j
	}
	return b.String()
}

// fit returns the least-squares line through (x, y): its slope (y per x,
// here sequential round trips) and intercept.
func fit(x, y []time.Duration) (float64, time.Duration) {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		a, b := float64(x[i]), float64(y[i])
		sx, sy, sxx, sxy = sx+a, sy+b, sxx+a*a, sxy+a*b
	}
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return slope, time.Duration((sy - slope*sx) / n)
}

// fleetRow is one row of the fleet table.
type fleetRow struct {
	setting                   string
	stacks                    int
	fleet, fleetP, single     time.Duration // medians; single: the slowest preview of a round
	fleetRSS, fleetPRSS, sRSS int64
	fleetConn, fleetPConn     connections // medians of first and last, count of the last round
	singleFirst               time.Duration
	singleConns               int // the most connections one single preview made, last round
	fleetCPU, fleetPCPU       cpuUse
}

// cpuUse is the CPU time one command cost: nestor's own (the launcher's
// rusage), the real servers' (etcd and kube-apiserver, /proc/PID/stat,
// 10 ms ticks, their idle work included) and this process's (the proxies
// and stand-ins; getrusage RUSAGE_SELF).
type cpuUse struct{ nestor, servers, bench time.Duration }

func (c cpuUse) total() time.Duration { return c.nestor + c.servers + c.bench }

// sampleCPU returns the CPU time used so far by the processes pids and by
// this process.
func sampleCPU(pids []int) (cpuUse, error) {
	var c cpuUse
	var err error
	if c.servers, err = bench.ProcessCPU(pids); err != nil {
		return c, err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return c, err
	}
	c.bench = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return c, nil
}

// medianCPU returns the run of median total CPU time.
func medianCPU(runs []cpuUse) cpuUse {
	if len(runs) == 0 {
		return cpuUse{}
	}
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b cpuUse) int { return cmp.Compare(a.total(), b.total()) })
	return s[len(s)/2]
}

// serverPIDs returns the process ids of every server's etcd and
// kube-apiserver.
func serverPIDs(servers []*server) []int {
	var pids []int
	for _, s := range servers {
		pids = append(pids, s.c.PIDs()...)
	}
	return pids
}

// fleet measures one row: -runs rounds (after a warm-up) of fleet, fleet
// --parallel P and every single preview, the three in an order that
// rotates every round.
func (e *env) fleet(ctx context.Context, tag, setting string, eps []endpoint, pids []int) (fleetRow, error) {
	o := e.o
	dir := filepath.Join(e.work, "stacks-"+tag)
	names, err := writeStacks(dir, eps)
	if err != nil {
		return fleetRow{}, err
	}
	var proxies []*bench.LatencyProxy
	for _, ep := range eps {
		proxies = append(proxies, ep.proxy)
	}
	r := fleetRow{setting: setting, stacks: len(eps)}
	var fw, fpw, sw, frss, fprss, srss, ff, fl, fpf, fpl, sf []time.Duration
	var fcpu, fpcpu []cpuUse
	for round := 0; round <= o.runs; round++ {
		for k := 0; k < 3; k++ {
			switch (k + round) % 3 {
			case 0, 1:
				parallel := 0
				if (k+round)%3 == 1 {
					parallel = o.parallel
				}
				resetAccepts(proxies)
				start := time.Now()
				cpu0, err := sampleCPU(pids)
				if err != nil {
					return r, err
				}
				s, err := e.fleetRun(ctx, dir, len(names), parallel)
				if err != nil {
					return r, err
				}
				cpu1, err := sampleCPU(pids)
				if err != nil {
					return r, err
				}
				use := cpuUse{nestor: s.CPU, servers: cpu1.servers - cpu0.servers, bench: cpu1.bench - cpu0.bench}
				c := accepted(proxies, start)
				if round == 0 {
					continue
				}
				if parallel == 0 {
					fw, frss, ff, fl = append(fw, s.Wall), append(frss, time.Duration(s.MaxRSS)), append(ff, c.first), append(fl, c.last)
					r.fleetConn.count = c.count
					fcpu = append(fcpu, use)
				} else {
					fpw, fprss, fpf, fpl = append(fpw, s.Wall), append(fprss, time.Duration(s.MaxRSS)), append(fpf, c.first), append(fpl, c.last)
					r.fleetPConn.count = c.count
					fpcpu = append(fpcpu, use)
				}
			case 2:
				var slowest time.Duration
				var rss int64
				for i, name := range names {
					resetAccepts([]*bench.LatencyProxy{eps[i].proxy})
					start := time.Now()
					s, err := e.preview(ctx, dir, name)
					if err != nil {
						return r, err
					}
					slowest, rss = max(slowest, s.Wall), max(rss, s.MaxRSS)
					if round > 0 {
						c := accepted([]*bench.LatencyProxy{eps[i].proxy}, start)
						sf = append(sf, c.first)
						if i == 0 {
							r.singleConns = 0
						}
						r.singleConns = max(r.singleConns, c.count)
					}
				}
				if round > 0 {
					sw, srss = append(sw, slowest), append(srss, time.Duration(rss))
				}
			}
		}
		if round == 0 {
			logf("%s, %d stacks: warm-up done", setting, len(names))
		}
	}
	r.fleet, r.fleetP, r.single = bench.Median(fw), bench.Median(fpw), bench.Median(sw)
	r.fleetRSS, r.fleetPRSS, r.sRSS = int64(bench.Median(frss)), int64(bench.Median(fprss)), int64(bench.Median(srss))
	r.fleetConn.first, r.fleetConn.last = bench.Median(ff), bench.Median(fl)
	r.fleetPConn.first, r.fleetPConn.last = bench.Median(fpf), bench.Median(fpl)
	r.singleFirst = bench.Median(sf)
	r.fleetCPU, r.fleetPCPU = medianCPU(fcpu), medianCPU(fpcpu)
	return r, nil
}

// floor is the shortest wall time in which this machine's cores could do
// the work c measured.
func floor(c cpuUse) time.Duration { return c.total() / time.Duration(runtime.NumCPU()) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var header = []string{"stacks", "on", "fleet (default --parallel)", "fleet --parallel P", "slowest single preview", "fleet ÷ slowest", "--parallel P ÷ slowest",
	"peak RSS: fleet / --parallel P / largest preview", "first connection after start: fleet / preview", "last connection: fleet / --parallel P", "connections: fleet / --parallel P / most of one preview",
	"fleet's CPU: nestor + servers + proxies and stand-ins", "CPU floor (÷ cores): fleet / --parallel P", "fleet ÷ floor / --parallel P ÷ floor"}

func cells(r fleetRow) []string {
	return []string{
		fmt.Sprint(r.stacks), r.setting,
		fmt.Sprintf("%.0f ms", ms(r.fleet)),
		fmt.Sprintf("%.0f ms", ms(r.fleetP)),
		fmt.Sprintf("%.0f ms", ms(r.single)),
		fmt.Sprintf("%.2f×", float64(r.fleet)/float64(r.single)),
		fmt.Sprintf("%.2f×", float64(r.fleetP)/float64(r.single)),
		fmt.Sprintf("%.1f / %.1f / %.1f MiB", bench.MiB(r.fleetRSS), bench.MiB(r.fleetPRSS), bench.MiB(r.sRSS)),
		fmt.Sprintf("%.0f / %.0f ms", ms(r.fleetConn.first), ms(r.singleFirst)),
		fmt.Sprintf("%.0f / %.0f ms", ms(r.fleetConn.last), ms(r.fleetPConn.last)),
		fmt.Sprintf("%d / %d / %d", r.fleetConn.count, r.fleetPConn.count, r.singleConns),
		fmt.Sprintf("%.0f + %.0f + %.0f ms", ms(r.fleetCPU.nestor), ms(r.fleetCPU.servers), ms(r.fleetCPU.bench)),
		fmt.Sprintf("%.0f / %.0f ms", ms(floor(r.fleetCPU)), ms(floor(r.fleetPCPU))),
		fmt.Sprintf("%.2f× / %.2f×", float64(r.fleet)/float64(floor(r.fleetCPU)), float64(r.fleetP)/float64(floor(r.fleetPCPU))),
	}
}

func headerFor(p int) []string {
	h := make([]string, len(header))
	for i, s := range header {
		h[i] = strings.ReplaceAll(s, "--parallel P", fmt.Sprintf("--parallel %d", p))
	}
	return h
}

func printRows(w io.Writer, rows []fleetRow, p int) {
	fmt.Fprintln(w, strings.Join(headerFor(p), " | "))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(cells(r), " | "))
	}
}

func writeRows(w io.Writer, rows []fleetRow, o options) {
	h := headerFor(o.parallel)
	fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat("---|", len(h)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells(r), " | "))
	}
}

// hostPort returns the host:port of a URL such as https://127.0.0.1:6443.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return net.JoinHostPort(u.Hostname(), u.Port())
}
