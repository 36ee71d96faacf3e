package probes

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// Runner runs a program and returns what it printed. Production code uses
// ExecRunner; tests pass a fake. err is the run's error (an *exec.ExitError
// when it exited non-zero, exec.ErrNotFound wrapped when it is not on PATH).
type Runner func(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error)

// Bounds of ExecRunner: what a program may print, and how long its output
// may stay open once it has exited or been killed.
const (
	// MaxProgramOutput is what a program's stdout may hold (limactl's list
	// of every instance, ansible-inventory's hosts, an admin.conf: far
	// less); stderr keeps its first MaxProgramOutput/64.
	MaxProgramOutput = 32 << 20
	// programWaitDelay is how long a program's output pipes may stay open
	// after it exited or was killed (a child it left behind holding
	// them): then they are closed and the run ends (os/exec Cmd.WaitDelay).
	programWaitDelay = 500 * time.Millisecond
)

// OutputTooLargeError: a program printed more than MaxProgramOutput on its
// stdout; it was killed and what it printed is not read.
type OutputTooLargeError struct {
	Program string
	Bound   int
}

func (e *OutputTooLargeError) Error() string {
	return fmt.Sprintf("%s printed more than %d MiB: it was stopped and its output not read", e.Program, e.Bound>>20)
}

// ExecRunner runs name from PATH with no stdin, killed when ctx ends, and
// returns its stdout and stderr. Its output is bounded: a stdout larger than
// MaxProgramOutput kills it (*OutputTooLargeError); stderr keeps what fits
// in its bound. A program whose pipes stay open after it exited or was
// killed (a child holding them) is given programWaitDelay, then its pipes
// are closed, so the run always ends with ctx.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	out := &boundedBuffer{max: MaxProgramOutput, overflow: cancel}
	errOut := &boundedBuffer{max: MaxProgramOutput / 64}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = programWaitDelay
	err := cmd.Run()
	if out.over {
		return nil, errOut.Bytes(), &OutputTooLargeError{Program: name, Bound: MaxProgramOutput}
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited; only a child it left holds its output
	}
	return out.Bytes(), errOut.Bytes(), err
}

// boundedBuffer keeps at most max bytes; past them it drops what comes and
// calls overflow (when set) once. It has no ReadFrom, so io.Copy goes
// through Write and its bound. What it keeps is held in blocks of at most
// bufferBlock bytes, never copied while it grows: a flood costs the bound
// and nothing more (a doubling buffer holds its old and new arrays at once
// and leaves the garbage of every doubling to the collector).
type boundedBuffer struct {
	blocks   [][]byte
	n        int
	max      int
	over     bool
	overflow func()
}

// bufferBlock is the size of one block of a boundedBuffer.
const bufferBlock = 1 << 20

// Bytes returns what was kept, in one slice.
func (b *boundedBuffer) Bytes() []byte {
	switch len(b.blocks) {
	case 0:
		return nil
	case 1:
		return b.blocks[0]
	}
	out := make([]byte, 0, b.n)
	for _, blk := range b.blocks {
		out = append(out, blk...)
	}
	return out
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.n; len(p) > room {
		p = p[:max(room, 0)]
		if !b.over && b.overflow != nil {
			b.overflow()
		}
		b.over = true
	}
	for len(p) > 0 {
		last := len(b.blocks) - 1
		if last < 0 || len(b.blocks[last]) == cap(b.blocks[last]) {
			// Each block is as large as what is kept so far (so there
			// are few), at most bufferBlock and what room is left.
			size := min(bufferBlock, b.max-b.n, max(len(p), b.n, 4096))
			b.blocks = append(b.blocks, make([]byte, 0, size))
			last++
		}
		blk := b.blocks[last]
		k := min(cap(blk)-len(blk), len(p))
		b.blocks[last] = append(blk, p[:k]...)
		b.n += k
		p = p[k:]
	}
	return n, nil
}
