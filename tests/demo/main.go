// Command demo shows nestor reading a real Kubernetes API server, in one
// command from the repository root:
//
//	go run ./tests/demo                     # the demo, then everything stops and goes
//	go run ./tests/demo --keep              # the same, and the cluster stays up to play with
//	go run ./tests/demo --as-of 2026-11-30  # support calendar judged at that date (README's sample)
//
// It uses the parts nestor's end-to-end tests use, and no stand-in: the test
// cluster binaries (etcd and kube-apiserver v1.37.2, built by
// tests/k8sbin/build.sh into its cache folder when missing, about 8 minutes
// the first time on 2 cores), the tests/harness package that runs them on
// loopback, the cluster fixture tests/testdata/clusters/demo.yaml, and the
// real nestor binary, built with go build. In a throw-away folder it writes
// a stacks folder holding the stack `demo` (with endpoint: and kubeconfig:)
// and runs, one after the other, each introduced by one line: preview,
// preview --detailed-exitcode, preview -o json (decoded in Go), the
// --no-input refusal of a KUBECONFIG exported for another server, and
// fleet; last, what the API server's audit log recorded of nestor.
//
// The demo's story goes to stdout (README.md's sample output is that text,
// kept equal by this package's test); progress (building, starting,
// stopping) goes to stderr. On exit, Ctrl-C and SIGTERM included, it stops
// etcd and kube-apiserver and removes every folder it wrote. With --keep the
// cluster is held by a background copy of the demo, which prints how to use
// it and how to stop it.
//
// Exit codes: 0 the demo ran (whatever nestor found, and whatever codes
// nestor returned, which are shown); 1 the demo could not run (a build
// failed, the cluster did not start, a nestor run did not end); 130
// interrupted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/tests/harness"
)

// Exit codes of the demo.
const (
	exitOK          = 0
	exitFailed      = 1
	exitInterrupted = 130
)

// fixturePath is the demo cluster, relative to the repository root.
const fixturePath = "tests/testdata/clusters/demo.yaml"

// stackName is the demo stack's name (its file is stacks/demo.yaml).
const stackName = "demo"

// errInterrupted ends the demo when SIGINT or SIGTERM arrived.
var errInterrupted = errors.New("interrupted")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs the demo, in this process or, with --keep, in a
// background holder (see keep.go). It returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keep := fs.Bool("keep", false, "leave the cluster running after the demo and print how to use and stop it")
	asOf := fs.String("as-of", "", "pass `YYYY-MM-DD` to nestor's --as-of: the support calendar is judged at that date,\nnot today, so the output does not change with the day (README.md's sample uses it)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./tests/demo [--keep] [--as-of YYYY-MM-DD]")
		fmt.Fprintln(stderr, "Starts a real etcd + kube-apiserver on loopback, loads a demo cluster and runs nestor against it.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitFailed
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitFailed
	}
	if *asOf != "" {
		if _, err := time.Parse(time.DateOnly, *asOf); err != nil {
			fmt.Fprintf(stderr, "demo: --as-of %q is not a date: write YYYY-MM-DD\n", *asOf)
			return exitFailed
		}
	}
	d := &demo{out: stdout, errOut: stderr, asOf: *asOf}
	switch {
	case isHolder():
		d.keep = true
		return d.hold()
	case *keep:
		return startHolder(args, stdout, stderr)
	}
	ctx := signalContext()
	code := d.exitCode(ctx, d.run(ctx))
	d.cleanup()
	return code
}

// demo is one run: where it works, what it started, where it writes.
type demo struct {
	out, errOut io.Writer
	// root is the repository root (go.mod of nestor.dev/nestor).
	root string
	// work is the throw-away folder: bin/nestor, stacks/, kube/, home/.
	work string
	// cluster is the running etcd + kube-apiserver (nil before Start).
	cluster *harness.Cluster
	// keep is set in the holder: the cluster outlives the demo's steps.
	keep bool
	// asOf, when set, is passed to nestor's --as-of (YYYY-MM-DD).
	asOf string
}

// Paths inside the work folder.
func (d *demo) nestorBin() string   { return filepath.Join(d.work, "bin", "nestor") }
func (d *demo) stacksDir() string   { return filepath.Join(d.work, "stacks") }
func (d *demo) home() string        { return filepath.Join(d.work, "home") }
func (d *demo) kubeconfig() string  { return filepath.Join(d.work, "kube", stackName+".config") }
func (d *demo) otherConfig() string { return filepath.Join(d.work, "kube", "other-cluster.config") }

// progress prints one progress line on stderr.
func (d *demo) progress(format string, a ...any) {
	fmt.Fprintf(d.errOut, "demo: "+format+"\n", a...)
}

// run prepares everything (binaries, nestor, cluster, stacks folder) and
// runs the steps. It returns errInterrupted when ctx was cancelled.
func (d *demo) run(ctx context.Context) error {
	if err := d.prepare(ctx); err != nil {
		return err
	}
	return d.steps(ctx)
}

// prepare finds the repository, makes the work folder, gets the test
// cluster binaries and nestor, starts the cluster, loads the fixture and
// writes the stacks folder.
func (d *demo) prepare(ctx context.Context) error {
	var err error
	if d.root, err = repoRoot(); err != nil {
		return err
	}
	if d.work, err = os.MkdirTemp("", "nestor-demo-"); err != nil {
		return fmt.Errorf("make the demo's folder: %w", err)
	}
	if err := d.testBinaries(ctx); err != nil {
		return err
	}
	if err := d.buildNestor(ctx); err != nil {
		return err
	}
	if err := d.startCluster(ctx); err != nil {
		return err
	}
	return d.writeStacks()
}

// repoRoot walks up from the working directory to the folder whose go.mod
// declares module nestor.dev/nestor.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("module nestor.dev/nestor\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the nestor repository: run the demo from it (go run ./tests/demo)")
		}
		dir = parent
	}
}

// testBinaries makes sure the etcd and kube-apiserver binaries are in the
// cache folder (harness.BinDir). When they are missing it runs
// tests/k8sbin/build.sh, which builds them there (its progress and
// heartbeat on stderr pass through) and prints the folder, exported as
// NESTOR_TEST_BIN for harness.Start.
func (d *demo) testBinaries(ctx context.Context) error {
	if dir, err := harness.BinDir(); err == nil {
		d.progress("test cluster binaries (etcd, kube-apiserver %s) found in %s", harness.K8sVersion, dir)
		return nil
	}
	d.progress("building the test cluster binaries (etcd, kube-apiserver, kubectl %s) with tests/k8sbin/build.sh:", harness.K8sVersion)
	d.progress("the first build takes about 8 minutes on 2 cores (later runs take seconds); its progress follows")
	// The folder is printed on stdout, read through a file: a process the
	// script leaves behind cannot hold a file open the way it holds a pipe.
	outFile := filepath.Join(d.work, "build-sh.out")
	f, err := os.Create(outFile)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := command(ctx, "bash", filepath.Join(d.root, "tests", "k8sbin", "build.sh"))
	cmd.Dir = d.root
	cmd.Stdout = f
	cmd.Stderr = d.errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("tests/k8sbin/build.sh: %v", err)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	if dir == "" {
		return errors.New("tests/k8sbin/build.sh printed no folder")
	}
	os.Setenv("NESTOR_TEST_BIN", dir) // read by harness.BinDir
	if _, err := harness.BinDir(); err != nil {
		return err
	}
	d.progress("test cluster binaries ready in %s (%v)", dir, time.Since(start).Round(time.Second))
	return nil
}

// buildNestor builds ./cmd/nestor into the work folder with go build.
func (d *demo) buildNestor(ctx context.Context) error {
	d.progress("building nestor (go build ./cmd/nestor)")
	var out bytes.Buffer
	cmd := command(ctx, "go", "build", "-o", d.nestorBin(), "./cmd/nestor")
	cmd.Dir = d.root
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("go build ./cmd/nestor: %v\n%s", err, out.Bytes())
	}
	return nil
}

// startCluster starts etcd and kube-apiserver (harness.Start) and loads the
// demo fixture. Neither call can be cancelled, so each runs aside: on a
// signal the demo waits for it to return, then stops what it started.
func (d *demo) startCluster(ctx context.Context) error {
	d.progress("starting etcd and kube-apiserver %s on 127.0.0.1", harness.K8sVersion)
	start := time.Now()
	type started struct {
		c   *harness.Cluster
		err error
	}
	done := make(chan started, 1)
	go func() {
		c, err := harness.Start(harness.Options{})
		done <- started{c, err}
	}()
	var s started
	select {
	case s = <-done:
	case <-ctx.Done():
		s = <-done
	}
	d.cluster = s.c
	if ctx.Err() != nil {
		return errInterrupted
	}
	if s.err != nil {
		return fmt.Errorf("start the test cluster: %w", s.err)
	}
	loaded := make(chan error, 1)
	go func() { loaded <- d.cluster.LoadFixture(filepath.Join(d.root, fixturePath)) }()
	select {
	case err := <-loaded:
		if err != nil {
			return fmt.Errorf("load %s: %w", fixturePath, err)
		}
	case <-ctx.Done():
		_ = d.cluster.Stop() // the load then fails at once
		<-loaded
		return errInterrupted
	}
	d.progress("API server %s ready, %s loaded, in %v", d.cluster.URL, fixturePath, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// demoStack is the topology of the demo stack; %s is the endpoint.
const demoStack = `# demo — the cluster the nestor demo started on this machine: a real
# kube-apiserver and etcd, loaded with tests/testdata/clusters/demo.yaml.
name: demo
target_kind: prod

# The read-only identity's kubeconfig, beside the stacks folder.
kubeconfig: ../kube/demo.config
# The API server this stack must be: --no-input refuses any other.
endpoint: %s

kubernetes:
  version: "1.37"

nodes:
  - {name: demo1, role: control-plane, address: 10.20.0.11}
  - {name: demo2, role: worker, address: 10.20.0.12}
  - {name: demo3, role: worker, address: 10.20.0.13}
  - {name: demo4, role: worker, address: 10.20.0.14}

backend: ceph

layers:
  - cilium
  - rook-ceph
  - cnpg
  - kube-prometheus-stack
  - argocd
`

// writeStacks writes the stacks folder (stacks/demo.yaml, selected as the
// active stack), the read-only kubeconfig of the demo cluster, a kubeconfig
// of another server (the phantom target of step 4; nothing listens there)
// and an empty HOME for nestor.
func (d *demo) writeStacks() error {
	for _, dir := range []string{d.stacksDir(), d.home()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := d.cluster.WriteKubeconfig(d.kubeconfig(), harness.IdentityReadOnly, d.cluster.URL); err != nil {
		return err
	}
	if err := d.cluster.WriteKubeconfig(d.otherConfig(), harness.IdentityReadOnly, otherServer); err != nil {
		return err
	}
	text := fmt.Sprintf(demoStack, d.cluster.URL)
	if err := os.WriteFile(filepath.Join(d.stacksDir(), stackName+".yaml"), []byte(text), 0o644); err != nil {
		return err
	}
	if _, err := (stacks.Store{Dir: d.stacksDir()}).Select(stackName); err != nil {
		return fmt.Errorf("select the demo stack: %w", err)
	}
	return nil
}

// otherServer is the server of the phantom kubeconfig: another address on
// loopback, where no API server of the demo listens. nestor must refuse it
// before sending it anything.
const otherServer = "https://127.0.0.2:6443"

// cleanup stops the cluster (when one was started) and removes the work
// folder. It is safe to call whatever prepare reached.
func (d *demo) cleanup() {
	var done, gone []string
	if d.cluster != nil {
		if err := d.cluster.Stop(); err != nil {
			d.progress("stop the cluster: %v", err)
		}
		done = append(done, "stopped etcd and kube-apiserver")
		gone = append(gone, d.cluster.Dir)
	}
	if d.work != "" {
		if err := os.RemoveAll(d.work); err != nil {
			d.progress("remove %s: %v", d.work, err)
		}
		gone = append(gone, d.work)
	}
	if len(gone) > 0 {
		done = append(done, "removed "+strings.Join(gone, " and "))
		d.progress("%s", strings.Join(done, "; "))
	}
}

// exitCode prints err (once, before the cleanup's own lines) and maps it
// to the demo's exit code.
func (d *demo) exitCode(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted) || ctx.Err() != nil:
		d.progress("interrupted; stopping")
		return exitInterrupted
	default:
		d.progress("error: %v", err)
		return exitFailed
	}
}

// signalContext returns a context cancelled by the first SIGINT or SIGTERM,
// which the demo answers by stopping the cluster and removing its folders;
// a second one ends the demo at once (the servers still end with it, by
// their parent-death signal; the folders may stay). It also calls
// survivePipes.
func signalContext() context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	survivePipes()
	return ctx
}

// survivePipes makes a write to a closed stdout or stderr (the demo piped
// into tee or less, which a Ctrl-C ends first) fail with EPIPE instead of
// ending the demo before it has stopped the cluster: Go's runtime exits on
// SIGPIPE for fds 1 and 2 unless the program asks for that signal.
func survivePipes() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// command returns an exec.Cmd for name in its own process group, so a
// cancelled ctx ends it and whatever it started (go build's compilers,
// build.sh's heartbeat), whether the signal came from a terminal or not.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// lines splits s into lines without the trailing newline's empty one.
func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
