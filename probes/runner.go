package probes

import (
	"bytes"
	"context"
	"os/exec"
)

// Runner runs a program and returns what it printed. Production code uses
// ExecRunner; tests pass a fake. err is the run's error (an *exec.ExitError
// when it exited non-zero, exec.ErrNotFound wrapped when it is not on PATH).
type Runner func(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error)

// ExecRunner runs name from PATH with exec.CommandContext (killed when ctx
// ends), no stdin, and returns its stdout and stderr.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	err := cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}
