// Command nestor-fleet-bench measures `nestor fleet` side by side with the
// single previews of the same stacks (method and results in BENCHMARKS.md,
// "fleet"). It starts -servers test clusters (tests/harness), loads each
// with the realistic fixture of -nodes nodes (bench.Generate, bench.Load),
// writes a stacks folder of prod stacks spread over the servers (each with
// its own read-only kubeconfig and endpoint:) plus one lima stack (the
// limactl stand-in of tests/testdata/limactl on PATH), then, for each count
// of -stacks, runs -runs rounds of: every single `nestor preview -o json
// --no-input --stack X`, then `nestor fleet -o json` over those stacks, all
// through the rusage launcher. It prints, per count, the median wall time
// and peak RSS of the fleet and of the slowest single preview, and their
// ratios; and the CPU time each side used: nestor's (the launcher's
// rusage) and the servers' (etcd and kube-apiserver, sampled from
// /proc/PID/stat before and after each command), with the floor they set
// on this machine: all that CPU divided by its cores is the shortest wall
// time any scheduling of the work could reach. Use tests/bench/fleet.sh,
// which builds the binaries first.
//
//	nestor-fleet-bench -nestor BIN -launcher BIN [-servers 4] [-nodes 500] [-stacks 1,8,32] [-runs 3]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"nestor.dev/nestor/tests/bench"
	"nestor.dev/nestor/tests/harness"
)

type options struct {
	nestor, launcher string
	servers, nodes   int
	counts           []int
	runs             int
	markdown         string
}

func main() {
	var o options
	var counts string
	flag.StringVar(&o.nestor, "nestor", "", "nestor binary (required)")
	flag.StringVar(&o.launcher, "launcher", "", "nestor-rusage binary (required)")
	flag.IntVar(&o.servers, "servers", 4, "test clusters (kube-apiserver + etcd) to spread the prod stacks over")
	flag.IntVar(&o.nodes, "nodes", 500, "nodes of each cluster's fixture")
	flag.StringVar(&counts, "stacks", "1,8,32", "comma-separated prod stack counts (one lima stack is added to each)")
	flag.IntVar(&o.runs, "runs", 3, "measured rounds per count, after one warm-up")
	flag.StringVar(&o.markdown, "markdown", "", "also write the table as Markdown to this file")
	flag.Parse()
	for _, s := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-stacks: %q is not a count", s)
		}
		o.counts = append(o.counts, n)
	}
	if o.nestor == "" || o.launcher == "" {
		fatalf("-nestor and -launcher are required (tests/bench/fleet.sh builds them)")
	}
	if err := run(o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nestor-fleet-bench: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nestor-fleet-bench: "+format+"\n", args...)
}

// row is one stack count's result.
type row struct {
	stacks                int
	fleetWall, singleWall time.Duration // medians; single: the slowest preview of a round
	sumWall               time.Duration // median of the rounds' summed single previews
	fleetRSS, singleRSS   int64         // medians; single: the largest of a round
	// CPU time, medians of the rounds: nestor's and the servers', for the
	// fleet and for all the single previews of a round added up.
	fleetCPU, sumCPU             time.Duration
	fleetServerCPU, sumServerCPU time.Duration
	statuses                     string
}

func run(o options) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "nestor-fleet-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	clusters := make([]*harness.Cluster, o.servers)
	for i := range clusters {
		logf("server %d/%d: starting and loading %d nodes", i+1, o.servers, o.nodes)
		c, err := harness.Start(harness.Options{})
		if err != nil {
			return err
		}
		defer c.Stop()
		fx := bench.Generate(bench.Spec{Nodes: o.nodes, Seed: uint64(i + 1)})
		if _, err := bench.Load(ctx, c.AdminConfig(), fx, bench.DefaultWorkers); err != nil {
			return fmt.Errorf("server %d: load: %w", i+1, err)
		}
		clusters[i] = c
		// The topology of this server's stacks: bench.TopologyYAML with the
		// stack's own name.
		topo := bench.TopologyYAML(fx, c.ReadOnly, c.URL, true)
		if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("server%d.yaml", i)), topo, 0o644); err != nil {
			return err
		}
	}
	limaBin := filepath.Join(work, "bin")
	if err := os.MkdirAll(limaBin, 0o755); err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	script, err := os.ReadFile(filepath.Join(root, "tests", "testdata", "limactl", "limactl"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(limaBin, "limactl"), script, 0o755); err != nil {
		return err
	}
	env := []string{"HOME=" + filepath.Join(work, "home"), "PATH=" + limaBin + ":/usr/bin:/bin", "LANG=C",
		"LIMACTL_STANDIN_LOG=" + filepath.Join(work, "limactl.log"),
		"LIMACTL_STANDIN_OUTPUT=" + filepath.Join(root, "tests", "testdata", "limactl", "bench-node2-stopped.jsonl")}
	bench0, err := os.ReadFile(filepath.Join(root, "stacks", "examples", "bench.yaml"))
	if err != nil {
		return err
	}

	var rows []row
	for _, n := range o.counts {
		dir := filepath.Join(work, fmt.Sprintf("stacks-%d", n))
		names, err := writeStacks(work, dir, n, o.servers, bench0)
		if err != nil {
			return err
		}
		r, err := measure(ctx, o, env, dir, names, serverPIDs(clusters))
		if err != nil {
			return fmt.Errorf("%d stacks: %w", n, err)
		}
		rows = append(rows, r)
		printTable(os.Stdout, rows)
	}
	if o.markdown != "" {
		var b bytes.Buffer
		writeMarkdown(&b, rows, o)
		return os.WriteFile(o.markdown, b.Bytes(), 0o644)
	}
	return nil
}

// writeStacks writes n prod stacks (prodNN, on server NN mod servers) and
// the lima stack bench into dir, and returns their names.
func writeStacks(work, dir string, n, servers int, bench0 []byte) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for i := 0; i < n; i++ {
		src, err := os.ReadFile(filepath.Join(work, fmt.Sprintf("server%d.yaml", i%servers)))
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("prod%02d", i)
		text := strings.Replace(string(src), "name: "+bench.StackName+"\n", "name: "+name+"\n", 1)
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(text), 0o644); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.yaml"), bench0, 0o644); err != nil {
		return nil, err
	}
	return append(names, "bench"), nil
}

// serverPIDs returns the process ids of every cluster's etcd and
// kube-apiserver.
func serverPIDs(clusters []*harness.Cluster) []int {
	var pids []int
	for _, c := range clusters {
		pids = append(pids, c.PIDs()...)
	}
	return pids
}

// runMeasured runs one nestor command through the launcher and returns its
// sample and the CPU time the servers used meanwhile.
func runMeasured(ctx context.Context, o options, step bench.Step, out io.Writer, servers []int) (bench.Sample, time.Duration, error) {
	before, err := bench.ProcessCPU(servers)
	if err != nil {
		return bench.Sample{}, 0, err
	}
	s, err := bench.RunSteps(ctx, o.launcher, []bench.Step{step}, out)
	if err != nil {
		return s, 0, err
	}
	after, err := bench.ProcessCPU(servers)
	return s, after - before, err
}

func measure(ctx context.Context, o options, env []string, dir string, names []string, servers []int) (row, error) {
	r := row{stacks: len(names)}
	var fleetWalls, singleWalls, sumWalls []time.Duration
	var fleetRSS, singleRSS []time.Duration // RSS kept as durations for Median
	var fleetCPU, sumCPU, fleetServerCPU, sumServerCPU []time.Duration
	for round := 0; round <= o.runs; round++ {
		var slowest, sum, cpu, serverCPU time.Duration
		var rss int64
		for _, name := range names {
			s, scpu, err := runMeasured(ctx, o, bench.Step{Argv: []string{o.nestor, "preview", "-o", "json", "--no-input", "--stacks", dir, "--stack", name}, Env: env}, nil, servers)
			if err != nil {
				return r, err
			}
			slowest, sum, rss = max(slowest, s.Wall), sum+s.Wall, max(rss, s.MaxRSS)
			cpu, serverCPU = cpu+s.CPU, serverCPU+scpu
		}
		var out bytes.Buffer
		s, scpu, err := runMeasured(ctx, o, bench.Step{Argv: []string{o.nestor, "fleet", "-o", "json", "--stacks", dir}, Env: env}, &out, servers)
		if err != nil {
			return r, err
		}
		statuses, err := bench.CheckFleet(out.Bytes(), len(names))
		if err != nil {
			return r, err
		}
		if round == 0 {
			logf("%d stacks: warm-up done (%s)", len(names), statuses)
			r.statuses = statuses
			continue
		}
		fleetWalls, singleWalls, sumWalls = append(fleetWalls, s.Wall), append(singleWalls, slowest), append(sumWalls, sum)
		fleetRSS, singleRSS = append(fleetRSS, time.Duration(s.MaxRSS)), append(singleRSS, time.Duration(rss))
		fleetCPU, sumCPU = append(fleetCPU, s.CPU), append(sumCPU, cpu)
		fleetServerCPU, sumServerCPU = append(fleetServerCPU, scpu), append(sumServerCPU, serverCPU)
	}
	r.fleetWall, r.singleWall, r.sumWall = bench.Median(fleetWalls), bench.Median(singleWalls), bench.Median(sumWalls)
	r.fleetCPU, r.sumCPU = bench.Median(fleetCPU), bench.Median(sumCPU)
	r.fleetServerCPU, r.sumServerCPU = bench.Median(fleetServerCPU), bench.Median(sumServerCPU)
	r.fleetRSS, r.singleRSS = int64(bench.Median(fleetRSS)), int64(bench.Median(singleRSS))
	return r, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "tests", "testdata", "limactl")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run from the repository (no tests/testdata/limactl above %s)", dir)
		}
		dir = parent
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func cells(r row) []string {
	floor := (r.fleetCPU + r.fleetServerCPU) / time.Duration(runtime.NumCPU())
	return []string{
		strconv.Itoa(r.stacks),
		fmt.Sprintf("%.0f ms", ms(r.fleetWall)),
		fmt.Sprintf("%.0f ms", ms(r.singleWall)),
		fmt.Sprintf("%.2f×", float64(r.fleetWall)/float64(r.singleWall)),
		fmt.Sprintf("%.0f ms", ms(r.sumWall)),
		fmt.Sprintf("%.1f MiB", bench.MiB(r.fleetRSS)),
		fmt.Sprintf("%.1f MiB", bench.MiB(r.singleRSS)),
		fmt.Sprintf("%.2f×", float64(r.fleetRSS)/float64(r.singleRSS)),
		fmt.Sprintf("%.0f / %.0f ms", ms(r.fleetCPU), ms(r.sumCPU)),
		fmt.Sprintf("%.0f / %.0f ms", ms(r.fleetServerCPU), ms(r.sumServerCPU)),
		fmt.Sprintf("%.0f ms", ms(floor)),
		fmt.Sprintf("%.2f×", float64(r.fleetWall)/float64(floor)),
	}
}

var header = []string{"stacks", "fleet wall", "slowest preview", "ratio", "sum of previews", "fleet peak RSS", "largest preview RSS", "ratio",
	"nestor CPU: fleet / previews", "servers' CPU: fleet / previews", "CPU floor of fleet", "fleet ÷ floor"}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, strings.Join(header, " | "))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(cells(r), " | "))
	}
}

func writeMarkdown(w io.Writer, rows []row, o options) {
	fmt.Fprintf(w, "%d servers × %d nodes; prod stacks spread over them, plus one lima stack; median of %d rounds; %d CPUs (the CPU floor is the fleet's CPU, nestor's and the servers', divided by them).\n\n", o.servers, o.nodes, o.runs, runtime.NumCPU())
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells(r), " | "))
	}
}
