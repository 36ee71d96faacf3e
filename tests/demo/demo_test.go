package main

// Tests of the demo: its output is README.md's sample (a golden block,
// rewritten with -update), it shows what it promises, and it leaves nothing
// behind — at its end, on SIGINT, and after --keep once its holder is
// killed. They run the built demo program as a user's `go run ./tests/demo`
// does, against the real test cluster binaries (skipped in -short).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"

	"nestor.dev/nestor/tests/golden"
)

// The demo block of README.md: a fenced ```text block between these lines.
const (
	readmeBegin = "<!-- demo output: begin -->"
	readmeEnd   = "<!-- demo output: end -->"
)

// readmeAsOf is the date README.md's sample judges the support calendar
// at (the demo's --as-of), so that the sample does not change with the day.
const readmeAsOf = "2026-11-30"

// demoLimit bounds one run of the demo (it builds nestor and starts a cluster).
const demoLimit = 5 * time.Minute

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// root is the repository root (go test runs in tests/demo).
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// demoBinary builds this package once (go build, into a folder TestMain
// removes) and returns the program's path. It skips in -short mode and
// fails when the test cluster binaries are missing, with the way to build
// them (the demo would build them itself, for 8 minutes: not in a test).
func demoBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real kube-apiserver + etcd; skipped in -short mode")
	}
	if _, err := harness.BinDir(); err != nil {
		t.Fatal(err)
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "nestor-demo-test-"); buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "demo")
		out, err := exec.Command("go", "build", "-o", buildPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./tests/demo: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// demoRun is one run of the demo program: its own TMPDIR (where it must
// leave nothing), its streams as they come.
type demoRun struct {
	t      *testing.T
	tmp    string
	cmd    *exec.Cmd
	stdout *stream
	stderr *stream
	done   chan struct{}
	err    error
}

// startDemo starts the demo with args from the repository root, in a
// process group of its own (as a shell runs a job), TMPDIR a fresh folder.
func startDemo(t *testing.T, args ...string) *demoRun {
	t.Helper()
	bin := demoBinary(t)
	r := &demoRun{t: t, tmp: t.TempDir(), stdout: newStream(), stderr: newStream(), done: make(chan struct{})}
	r.cmd = exec.Command(bin, args...)
	r.cmd.Dir = root(t)
	r.cmd.Env = append(environWithout("TMPDIR", holderEnv), "TMPDIR="+r.tmp)
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.cmd.WaitDelay = 10 * time.Second // a holder that kept our pipes open would be a failure, not a hang
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			<-r.done
		}
	})
	return r
}

// wait waits for the demo to end (demoLimit at most) and returns its exit code.
func (r *demoRun) wait() int {
	r.t.Helper()
	select {
	case <-r.done:
	case <-time.After(demoLimit):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
		r.t.Fatalf("the demo did not end within %v\n%s", demoLimit, r)
	}
	var ee *exec.ExitError
	switch {
	case r.err == nil:
		return 0
	case errors.As(r.err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	r.t.Fatalf("demo: %v\n%s", r.err, r)
	return -1
}

func (r *demoRun) String() string {
	return "--- stdout\n" + r.stdout.String() + "--- stderr\n" + r.stderr.String()
}

// assertNothingLeft fails unless the demo's TMPDIR is empty (its work
// folder and the cluster's folder removed) and no process mentions that
// folder on its command line (etcd's --data-dir, kube-apiserver's
// --cert-dir, nestor's paths).
func (r *demoRun) assertNothingLeft() {
	r.t.Helper()
	entries, err := os.ReadDir(r.tmp)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range entries {
		r.t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
	if ps := processesUsing(r.t, r.tmp); len(ps) > 0 {
		r.t.Errorf("processes left running:\n%s", strings.Join(ps, "\n"))
	}
}

// processesUsing lists the live processes whose command line contains dir,
// as "PID: command line".
func processesUsing(t *testing.T, dir string) []string {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 { // gone, or a zombie
			continue
		}
		line := strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ")
		if strings.Contains(line, dir) {
			out = append(out, filepath.Base(filepath.Dir(p))+": "+line)
		}
	}
	return out
}

// environWithout is os.Environ() less the given variables.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

// TestDemo runs the demo as `go run ./tests/demo` does: it exits 0, shows
// the NotReady node, the degraded argocd with its reason, the absent
// layer's install step, the refusal and the audit log; its output is
// README.md's sample; and it leaves no folder and no process behind.
func TestDemo(t *testing.T) {
	r := startDemo(t, "--as-of", readmeAsOf)
	if code := r.wait(); code != 0 {
		t.Fatalf("exit code %d, want 0\n%s", code, r)
	}
	out := r.stdout.String()
	for what, re := range map[string]string{
		"the NotReady node":             `(?m)^\s+demo3\s+Unknown\s+<none>\s+v1\.37\.2\s+10\.20\.0\.13\s+NodeStatusUnknown: Kubelet stopped posting node status\.$`,
		"the kubelet behind the server": `(?m)^\s+demo4\s+True\s+<none>\s+v1\.36\.4\s`,
		"demo3's repair step":           `(?m)^\s+\d+\. ~ repair-node demo3\s+\(registered, Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status\.\)$`,
		"argocd degraded, and why":      `(?m)^\s+argocd\s+degraded\s+\(argocd/argocd-repo-server 0/1 available\)$`,
		"argocd's repair step":          `(?m)^\s+\d+\. ~ repair argocd\s+\(argocd/argocd-repo-server 0/1 available\)$`,
		"the absent layer":              `(?m)^\s+kube-prometheus-stack\s+absent\s`,
		"its install step":              `(?m)^\s+\d+\. \+ install kube-prometheus-stack\s+\(`,
		"the undeclared layer":          `(?m)^\s+\d+\. i undeclared cert-manager\s+\(`,
		"the kubelet's upgrade step":    `(?m)^\s+\d+\. ~ upgrade-node demo4\s+\(kubelet v1\.36\.4 → 1\.37\)$`,
		"the pinned calendar date":      `(?m)^  versions\s+\(support judged as of ` + readmeAsOf + `\)$`,
		"--detailed-exitcode's code":    `(?m)^\$ nestor preview --detailed-exitcode --as-of \S+ >/dev/null\nexit code 2$`,
		"the JSON summary":              `(?m)^  actual\.layers  healthy cnpg; degraded cilium, rook-ceph, argocd; absent kube-prometheus-stack; undeclared cert-manager$`,
		"the refusal":                   `(?m)^Error: refusing: the target is not stack demo$`,
		"nothing sent":                  `(?m)^Nothing was sent to the target\.`,
		"the refusal's code":            `(?m)^Nothing was sent to the target\..*\nexit code 1$`,
		"the fleet line":                `(?m)^demo\s+prod\s+https://127\.0\.0\.1:\d+\s+changes\s`,
		"the audit log":                 `(?m)^── The API server's audit log: nestor's requests in steps 1 to 5, \d+ \(get \d+, list \d+\), all reads; in step 4, none\.$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("%s: no match for %s in the demo's output", what, re)
		}
	}
	if !strings.Contains(r.stderr.String(), "stopped etcd and kube-apiserver; removed ") {
		t.Errorf("stderr does not say the cluster was stopped and the folders removed:\n%s", r.stderr)
	}
	r.assertNothingLeft()
	if t.Failed() {
		t.Logf("%s", r)
	}
	checkREADME(t, normalize(out, r.tmp, readmeAsOf))
}

// TestDemoInterrupted sends SIGINT to the demo's process group (what a
// terminal's Ctrl-C does) while the cluster starts and while nestor runs:
// it ends with 130, and nothing is left.
func TestDemoInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name, stream, after string
		running             bool // etcd and kube-apiserver are up by then
		args                []string
	}{
		{"while the cluster starts", "stderr", "demo: starting etcd and kube-apiserver", false, nil},
		{"while nestor runs", "stdout", "── 1. preview", true, nil},
		// The holder is in a session of its own: the signal reaches the
		// demo the user started, which passes it on.
		{"--keep, while nestor runs", "stdout", "── 1. preview", true, []string{"--keep"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startDemo(t, tc.args...)
			s := r.stdout
			if tc.stream == "stderr" {
				s = r.stderr
			}
			select {
			case <-s.seen(tc.after):
			case <-r.done:
				t.Fatalf("the demo ended before %q\n%s", tc.after, r)
			case <-time.After(demoLimit):
				t.Fatalf("no %q within %v\n%s", tc.after, demoLimit, r)
			}
			if ps := processesUsing(t, r.tmp); tc.running && len(ps) < 2 {
				t.Fatalf("etcd and kube-apiserver should be running before the signal; processes: %q", ps)
			}
			if err := syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if code := r.wait(); code != exitInterrupted {
				t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, r)
			}
			if !strings.Contains(r.stderr.String(), "demo: interrupted; stopping") {
				t.Errorf("stderr does not say it was interrupted:\n%s", r.stderr)
			}
			r.assertNothingLeft()
		})
	}
}

// TestDemoKeep runs the demo with --keep: it returns at once, the cluster
// stays up and nestor reads it with the printed lines; the printed kill
// stops it and removes everything.
func TestDemoKeep(t *testing.T) {
	r := startDemo(t, "--keep")
	if code := r.wait(); code != 0 {
		t.Fatalf("exit code %d, want 0\n%s", code, r)
	}
	out := r.stdout.String()
	m := regexp.MustCompile(`(?m)^  kill (\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no kill line in the output:\n%s", r)
	}
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { // a failed test leaves nothing either
		if isHolderOf(pid, r.tmp) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if !isHolderOf(pid, r.tmp) {
		t.Fatalf("process %d (the kill line) is not the demo's holder", pid)
	}
	if ps := processesUsing(t, r.tmp); len(ps) < 2 {
		t.Fatalf("after --keep, etcd and kube-apiserver should run; processes: %q", ps)
	}

	e := regexp.MustCompile(`(?m)^  export PATH="([^"]+):\$PATH" NESTOR_STACKS=(\S+)$`).FindStringSubmatch(out)
	if e == nil {
		t.Fatalf("no export line in the output:\n%s", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(e[1], "nestor"), "preview")
	cmd.Env = []string{"PATH=" + e[1] + ":/usr/bin:/bin", "NESTOR_STACKS=" + e[2], "HOME=" + t.TempDir()}
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nestor preview on the kept cluster: %v\n%s", err, got)
	}
	for _, want := range []string{"Stack demo (prod)", "nodes   4 registered, 3 Ready", "~ repair argocd"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("nestor preview on the kept cluster: no %q in\n%s", want, got)
		}
	}

	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the holder %d still runs a minute after kill", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.assertNothingLeft()
}

// isHolderOf reports whether pid is the demo's holder started with TMPDIR
// tmp (so a test never signals a process that merely reused the number).
func isHolderOf(pid int, tmp string) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	env := strings.Split(string(data), "\x00")
	return slices.Contains(env, holderEnv+"=1") && slices.Contains(env, "TMPDIR="+tmp)
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...: the state follows the last ")".
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// normalize makes the demo's output the same from run to run: the API
// server's port (a free one each run) becomes NNNNN, the seconds since
// Ceph last checked its health NN, the folders made in
// tmp (TMPDIR) /tmp/nestor-demo-XXXXXX and /tmp/nestor-test-cluster-XXXXXX,
// and today's date, wherever nestor would print it, YYYY-MM-DD — unless it
// is pinned, the --as-of date the run was given (the calendar's judgement
// then stays that of the pinned day, and so does the date it prints).
func normalize(out, tmp, pinned string) string {
	out = regexp.MustCompile(`(https://127\.0\.0\.1):\d+`).ReplaceAllString(out, "$1:NNNNN")
	out = regexp.MustCompile(`checked \d+ s ago`).ReplaceAllString(out, "checked NN s ago")
	for _, name := range []string{"nestor-demo-", "nestor-test-cluster-"} {
		re := regexp.MustCompile(regexp.QuoteMeta(filepath.Join(tmp, name)) + `\d+`)
		out = re.ReplaceAllString(out, "/tmp/"+name+"XXXXXX")
	}
	for _, now := range []time.Time{time.Now(), time.Now().UTC()} {
		if today := now.Format(time.DateOnly); today != pinned {
			out = strings.ReplaceAll(out, today, "YYYY-MM-DD")
		}
	}
	return out
}

// checkREADME compares got with README.md's demo block, or rewrites the
// block with -update.
func checkREADME(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join(root(t), "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, start, end, err := readmeBlock(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if golden.Updating() {
		text := string(data)
		if err := os.WriteFile(path, []byte(text[:start]+got+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the demo block of %s", path)
		return
	}
	if got != want {
		t.Errorf("README.md's demo block differs from the demo's output (normalised); review, then rewrite it with\n"+
			"  go test ./tests/demo -run 'TestDemo$' -update\n%s", lineDiff(want, got))
	}
}

// readmeBlock finds the fenced block between readmeBegin and readmeEnd in
// text and returns its content (without the fences) and where that content
// starts and ends in text.
func readmeBlock(text string) (block string, start, end int, err error) {
	b := strings.Index(text, readmeBegin+"\n")
	e := strings.Index(text, readmeEnd)
	if b < 0 || e < 0 || e < b {
		return "", 0, 0, fmt.Errorf("no demo block: the lines %q and %q around a ```text block", readmeBegin, readmeEnd)
	}
	inner := text[b+len(readmeBegin)+1 : e]
	const open, close = "```text\n", "```\n"
	if !strings.HasPrefix(inner, open) || !strings.HasSuffix(inner, close) {
		return "", 0, 0, fmt.Errorf("the demo block must be a ```text fenced block right between %q and %q", readmeBegin, readmeEnd)
	}
	start = b + len(readmeBegin) + 1 + len(open)
	end = e - len(close)
	return text[start:end], start, end, nil
}

// lineDiff lists the lines that differ between want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n  README: %q\n  demo:   %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// stream collects a process's output and tells when a text first shows.
type stream struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters map[string]chan struct{}
}

func newStream() *stream { return &stream{waiters: map[string]chan struct{}{}} }

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	for text, ch := range s.waiters {
		if bytes.Contains(s.buf.Bytes(), []byte(text)) {
			close(ch)
			delete(s.waiters, text)
		}
	}
	return len(p), nil
}

// seen returns a channel closed once text has been written.
func (s *stream) seen(text string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	if bytes.Contains(s.buf.Bytes(), []byte(text)) {
		close(ch)
		return ch
	}
	s.waiters[text] = ch
	return ch
}

func (s *stream) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
