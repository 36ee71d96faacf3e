package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Sample is one measured run of a command: possibly several processes run
// one after the other (kubectl's two gets).
type Sample struct {
	// Wall is the summed wall time of the processes, from start to reaped.
	Wall time.Duration
	// MaxRSS is the largest peak resident set size of the processes, in
	// bytes (wait4's rusage ru_maxrss, which Linux reports in KiB).
	MaxRSS int64
}

// Step is one process of a command.
type Step struct {
	Argv []string
	// Env is the whole environment of the process (nothing is inherited).
	Env []string
}

// RunSteps runs steps one after the other, each with stdout to out (when
// nil: discarded by the kernel, /dev/null) and stderr kept, and returns the
// sample. A step that fails to start or exits non-zero ends the run with an
// error quoting the end of its stderr.
func RunSteps(ctx context.Context, steps []Step, out io.Writer) (Sample, error) {
	var s Sample
	for _, st := range steps {
		one, err := runOne(ctx, st, out)
		s.Wall += one.Wall
		s.MaxRSS = max(s.MaxRSS, one.MaxRSS)
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

func runOne(ctx context.Context, st Step, out io.Writer) (Sample, error) {
	cmd := exec.CommandContext(ctx, st.Argv[0], st.Argv[1:]...)
	cmd.Env = st.Env
	cmd.Stdout = out // nil: /dev/null
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var s Sample
	s.Wall = wall
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.MaxRSS = ru.Maxrss * 1024
		}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return s, fmt.Errorf("%s: %v: %s", strings.Join(st.Argv, " "), err, msg)
	}
	return s, nil
}

// Median returns the median of d (the mean of the two middle values for an
// even count), 0 for none.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MiB converts bytes to mebibytes.
func MiB(b int64) float64 { return float64(b) / (1 << 20) }
