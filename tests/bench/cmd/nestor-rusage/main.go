// Command nestor-rusage runs one program and reports its wall time, CPU time
// and peak resident set size, for the benchmarks (BENCHMARKS.md).
//
//	nestor-rusage -- PROGRAM [ARG…]
//
// PROGRAM inherits the environment and the three standard streams. When it
// has ended, one line "WALL_NS MAXRSS_KIB EXIT_STATUS CPU_NS" is written to
// file descriptor 3 (the caller's pipe): the wall time from fork to reaped,
// wait4's ru_maxrss of the child, its exit status, and its CPU time (wait4's
// ru_utime + ru_stime: user and system time of all its threads).
//
// Why a launcher: Linux's ru_maxrss of a child starts at the resident size
// of the process that forked it (exec records the old address space's
// high-water mark), so a child of the large benchmark driver would report
// the driver's memory. This launcher stays a few MiB, which bounds that
// inheritance; the benchmark reports the bound it measured with /bin/true.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: nestor-rusage -- PROGRAM [ARG…]")
		os.Exit(2)
	}
	report := os.NewFile(3, "report")
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nestor-rusage:", err)
		os.Exit(127)
	}
	start := time.Now()
	pid, err := syscall.ForkExec(path, args, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nestor-rusage:", err)
		os.Exit(127)
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nestor-rusage: wait4:", err)
		os.Exit(127)
	}
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if report != nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		fmt.Fprintf(report, "%d %d %d %d\n", wall.Nanoseconds(), ru.Maxrss, code, cpu.Nanoseconds())
	}
	os.Exit(code)
}
