package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is one child process (etcd or kube-apiserver) running in its own
// process group, its stdout and stderr going to a log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	// done is closed once the process has exited and been reaped; waitErr
	// is then its exit status.
	done    chan struct{}
	waitErr error
}

// startProcess starts bin with args, its output appended to logPath. The
// child gets its own process group (so stop reaches anything it forks) and
// SIGKILL when the test binary dies without running its cleanups (a panic,
// a -timeout), so no server outlives the test. The caller must call stop.
func startProcess(name, bin string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = []string{"PATH=/usr/bin:/bin"} // nothing of the test's environment leaks in
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and
// returns once the process is reaped. Calling it again is harmless.
func (p *process) stop(grace time.Duration) {
	pgid := p.cmd.Process.Pid // Setpgid: the group id is the child's pid
	if !p.exited() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		}
	}
	// Anything the process forked into its group goes too (ESRCH, the
	// usual answer, means the group is already empty).
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// tail returns the last n lines of the process's log, for error messages.
func (p *process) tail(n int) string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const maxBytes = 16 << 10
	if st, err := f.Stat(); err == nil && st.Size() > maxBytes {
		_, _ = f.Seek(st.Size()-maxBytes, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(data, nil)), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// failure describes a process that died or did not become ready: what
// happened, its exit status when known, and the tail of its log.
func (p *process) failure(what string) error {
	status := "still running"
	if p.exited() {
		status = fmt.Sprintf("exited: %v", p.waitErr)
	}
	return fmt.Errorf("%s %s (%s); last lines of its log:\n%s", p.name, what, status, p.tail(30))
}
