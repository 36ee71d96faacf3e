package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	// CPU is the summed CPU time of the processes: user + system, all
	// threads (wait4's ru_utime + ru_stime).
	CPU time.Duration
}

// Step is one process of a command.
type Step struct {
	Argv []string
	// Env is the whole environment of the process (nothing is inherited).
	Env []string
}

// RunSteps runs steps one after the other, each through launcher (the
// nestor-rusage binary: wall time and ru_maxrss measured by a small
// process, see its doc) with stdout to out (when nil: /dev/null) and stderr
// kept, and returns the sample. A step that fails to start or exits
// non-zero ends the run with an error quoting the end of its stderr.
func RunSteps(ctx context.Context, launcher string, steps []Step, out io.Writer) (Sample, error) {
	var s Sample
	for _, st := range steps {
		one, err := runOne(ctx, launcher, st, out)
		s.Wall += one.Wall
		s.MaxRSS = max(s.MaxRSS, one.MaxRSS)
		s.CPU += one.CPU
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

func runOne(ctx context.Context, launcher string, st Step, out io.Writer) (Sample, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return Sample{}, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, launcher, append([]string{"--"}, st.Argv...)...)
	cmd.Env = st.Env
	cmd.Stdout = out // nil: /dev/null
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return Sample{}, fmt.Errorf("start %s: %w", launcher, err)
	}
	report, _ := io.ReadAll(r)
	err = cmd.Wait()
	var s Sample
	var wallNS, rssKiB, cpuNS int64
	var code int
	if _, perr := fmt.Sscan(string(report), &wallNS, &rssKiB, &code, &cpuNS); perr != nil {
		if err == nil {
			err = fmt.Errorf("no report from %s (%q)", launcher, report)
		}
	}
	s.Wall = time.Duration(wallNS)
	s.MaxRSS = rssKiB * 1024
	s.CPU = time.Duration(cpuNS)
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

// clockTicks is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux architecture Go supports (proc(5), sysconf(_SC_CLK_TCK)).
const clockTicks = 100

// ProcessCPU returns the CPU time (user + system, all threads, exited ones
// included) the running processes pids have used since they started, read
// from /proc/PID/stat (proc(5): fields 14 utime and 15 stime, in clock
// ticks of 10 ms). It is for processes the benchmark did not start itself,
// such as a test cluster's servers: sample it before and after a command.
// An error names the process whose file could not be read or parsed.
func ProcessCPU(pids []int) (time.Duration, error) {
	var total time.Duration
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		// The command name (field 2) is in parentheses and may hold spaces:
		// fields are counted after its closing parenthesis.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			return 0, fmt.Errorf("/proc/%d/stat: unexpected format %q", pid, b)
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			return 0, fmt.Errorf("/proc/%d/stat: unexpected format %q", pid, b)
		}
		var utime, stime int64
		if _, err := fmt.Sscan(f[11]+" "+f[12], &utime, &stime); err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: utime, stime: %v", pid, err)
		}
		total += time.Duration(utime+stime) * time.Second / clockTicks
	}
	return total, nil
}
