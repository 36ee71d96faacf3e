package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"nestor.dev/nestor/tests/harness"
)

// With --keep the cluster must outlive the command: etcd and kube-apiserver
// die with the process that started them (the harness starts them with a
// parent-death signal, so no server outlives a crashed test). So the demo
// runs in a holder: a copy of this program in a session of its own, which
// does the whole demo on the caller's stdout and stderr, prints how to use
// and stop the cluster, tells the caller it is ready on a pipe, and then
// holds the cluster until SIGTERM or SIGINT, when it stops it and removes
// every folder, as a demo without --keep does at its end.

// holderEnv marks the holder's environment.
const holderEnv = "NESTOR_DEMO_HOLDER"

// holderReady is the line the holder writes on its status pipe (fd 3) once
// the demo ran and the cluster is held.
const holderReady = "ready"

func isHolder() bool { return os.Getenv(holderEnv) == "1" }

// startHolder runs this program again as the holder (same args, its own
// session, the caller's stdout and stderr) and returns 0 once it says it is
// ready; if it ends before that, its exit code. SIGINT and SIGTERM received
// meanwhile are passed on to it (it is in another session: a terminal's
// Ctrl-C reaches only this process).
func startHolder(args []string, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "demo: error: %v\n", err)
		return exitFailed
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "demo: error: %v\n", err)
		return exitFailed
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), holderEnv+"=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "demo: error: start the holder: %v\n", err)
		return exitFailed
	}
	w.Close()
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ready <- line == holderReady+"\n"
	}()
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case ok := <-ready:
			if ok {
				return exitOK // the holder runs on; it is stopped with kill
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Exited() {
				return ee.ExitCode()
			}
			if err != nil {
				fmt.Fprintf(stderr, "demo: error: the holder: %v\n", err)
			}
			return exitFailed
		}
	}
}

// hold runs the demo in the holder, keeps the cluster, prints how to use
// and stop it, says ready on fd 3, and holds until SIGTERM or SIGINT.
func (d *demo) hold() int {
	status := os.NewFile(3, "status")
	ctx := signalContext()
	signal.Ignore(syscall.SIGHUP)
	if err := d.run(ctx); err != nil {
		code := d.exitCode(ctx, err)
		d.cleanup()
		return code
	}
	d.printKeep()
	if _, err := fmt.Fprintln(status, holderReady); err != nil {
		code := d.exitCode(ctx, err)
		d.cleanup()
		return code
	}
	status.Close()
	detach()
	<-ctx.Done()
	d.cleanup()
	return exitOK
}

// detach points stdout and stderr at /dev/null: the caller's terminal or
// pipe is not the holder's to keep open, and a write to a closed pipe
// would kill it.
func detach() {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer devnull.Close()
	for _, fd := range []int{1, 2} {
		_ = syscall.Dup3(int(devnull.Fd()), fd, 0)
	}
}

// printKeep prints how to use the kept cluster and how to stop it.
func (d *demo) printKeep() {
	pid := os.Getpid()
	d.say("")
	d.say("The cluster keeps running (kube-apiserver %s, etcd), held by the demo's process %d.", d.cluster.URL, pid)
	d.say("Use it from a shell:")
	d.say("  export PATH=\"%s:$PATH\" NESTOR_STACKS=%s", filepath.Dir(d.nestorBin()), d.stacksDir())
	d.say("  unset KUBECONFIG    # an exported KUBECONFIG comes before the stack's kubeconfig:")
	d.say("  nestor preview      # on a terminal it shows the target and asks before reading")
	d.say("  nestor discover")
	d.say("  nestor fleet")
	if bin, err := harness.BinDir(); err == nil {
		if kubectl := filepath.Join(bin, "kubectl"); isExecutable(kubectl) {
			d.say("No controller runs there: change a status yourself, as admin, then preview again:")
			d.say("  %s --kubeconfig %s -n argocd patch deployment argocd-repo-server \\", kubectl, d.cluster.Admin)
			d.say("    --subresource=status --type=merge -p '{\"status\":{\"availableReplicas\":1,\"readyReplicas\":1}}'")
		}
	}
	d.say("Stop it: this stops etcd and kube-apiserver and removes %s and %s:", d.work, d.cluster.Dir)
	d.say("  kill %d", pid)
	d.say("(Killed with -9 instead, the servers still end with it, but the folders stay: rm -rf %s %s)", d.work, d.cluster.Dir)
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
