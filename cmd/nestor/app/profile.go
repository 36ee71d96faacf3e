package app

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profiling is kubectl's --profile and --profile-output: a CPU or heap
// profile of this run, in pprof's format, for `go tool pprof`, or an
// execution trace (trace), for `go tool trace`.
type profiling struct {
	kind, output string
	cpu          *os.File
	trace        *os.File
}

// start begins the CPU profile (--profile cpu) or the execution trace
// (--profile trace). Errors: an unknown kind, or the output file cannot be
// created.
func (p *profiling) start() error {
	begin := map[string]func(io.Writer) error{"cpu": pprof.StartCPUProfile, "trace": trace.Start}[p.kind]
	switch p.kind {
	case "", "none", "heap":
		return nil
	case "cpu", "trace":
		f, err := os.Create(p.output)
		if err != nil {
			return fmt.Errorf("--profile-output: %w", err)
		}
		if p.kind == "cpu" {
			p.cpu = f
		} else {
			p.trace = f
		}
		return begin(f)
	}
	return fmt.Errorf("--profile %q: write none, cpu, heap or trace", p.kind)
}

// stop ends the CPU profile, or writes the heap profile (after a GC, so
// it shows what is live at the end of the run), to --profile-output.
func (p *profiling) stop() error {
	switch {
	case p.cpu != nil:
		pprof.StopCPUProfile()
		return p.cpu.Close()
	case p.trace != nil:
		trace.Stop()
		return p.trace.Close()
	case p.kind == "heap":
		f, err := os.Create(p.output)
		if err != nil {
			return fmt.Errorf("--profile-output: %w", err)
		}
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}
