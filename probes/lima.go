package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"unicode"

	"nestor.dev/nestor/topology"
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

// limaInstance is the part of lima's store.Instance that `limactl list
// --json` prints and nestor uses (lima-vm/lima pkg/store/instance.go:
// name, status, dir, vmType, cpus, memory and disk in bytes; the PIDs are
// omitted when the instance is stopped).
type limaInstance struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Dir    string `json:"dir"`
	VMType string `json:"vmType"`
	CPUs   int    `json:"cpus"`
	Memory int64  `json:"memory"`
	Disk   int64  `json:"disk"`
}

// decodeLimaList decodes the output of `limactl list --json` in any of the
// forms lima has printed: one JSON object per line (today), pretty-printed
// objects back to back (older releases), or one JSON array. Empty output
// (only white space) is no instance. The order of the output is kept.
//
// An output it cannot read is an error that says where it stopped: the
// instance (counted from 1) and the byte offset in out — an output cut off
// in the middle of an instance is never read as the instances before it.
func decodeLimaList(out []byte) ([]topology.VM, error) {
	vms := []topology.VM{}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return vms, nil
	}
	// Offsets in errors count from the start of out.
	lead := int64(len(out) - len(bytes.TrimLeftFunc(out, unicode.IsSpace)))
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var start int64 // where the instance being read starts
	fail := func(err error) error {
		return limaListError(err, len(vms)+1, lead+start, int64(len(out)))
	}
	add := func(in limaInstance) error {
		if in.Name == "" {
			return fmt.Errorf("instance %d (starting at byte %d): it has no name", len(vms)+1, lead+start)
		}
		vms = append(vms, topology.VM{Name: in.Name, Status: in.Status, Dir: in.Dir, VMType: in.VMType,
			CPUs: in.CPUs, Memory: in.Memory, Disk: in.Disk})
		return nil
	}
	// next reads one instance: start is where its first byte is.
	next := func() (limaInstance, error) {
		start = dec.InputOffset()
		rest := bytes.TrimLeft(trimmed[start:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ',' { // between the entries of an array
			rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		}
		start = int64(len(trimmed) - len(rest))
		var in limaInstance
		return in, dec.Decode(&in)
	}
	if trimmed[0] == '[' {
		if _, err := dec.Token(); err != nil {
			return nil, fail(err)
		}
		for dec.More() {
			in, err := next()
			if err != nil {
				return nil, fail(err)
			}
			if err := add(in); err != nil {
				return nil, err
			}
		}
		start = dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			return nil, fail(err)
		}
		end := dec.InputOffset()
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("unexpected data after the JSON array (byte %d)", lead+end+int64(len(trimmed[end:])-len(bytes.TrimLeft(trimmed[end:], " \t\r\n"))))
		}
		return vms, nil
	}
	for {
		in, err := next()
		if err == io.EOF {
			return vms, nil
		}
		if err != nil {
			return nil, fail(err)
		}
		if err := add(in); err != nil {
			return nil, err
		}
	}
}

// limaListError says where decodeLimaList stopped: in instance n, which
// starts at byte start of the output, size bytes long. (The decoder's own
// offsets are not used: they do not count the bytes read as tokens.)
func limaListError(err error, n int, start, size int64) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("the output stops inside instance %d (which starts at byte %d; the output ends at byte %d): it is cut off", n, start, size)
	}
	return fmt.Errorf("instance %d (starting at byte %d): %v", n, start, err)
}

// readVMs runs `limactl list --json` through run and returns the VMs as a
// fact: known (possibly empty: no instance prints nothing and exits 0), or
// unknown with limactl's own message when it is missing, fails or prints
// something that is not its JSON.
func readVMs(ctx context.Context, run Runner) topology.VMsObserved {
	stdout, stderr, err := run(ctx, "limactl", "list", "--json")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return topology.UnknownFact[[]topology.VM]("limactl is not installed (not found on PATH)")
		}
		if ctx.Err() != nil {
			return topology.UnknownFact[[]topology.VM]("limactl list --json did not finish: " + ctx.Err().Error())
		}
		msg := sanitize(tail(stderr, 300))
		if msg == "" {
			msg = err.Error()
		} else {
			msg = err.Error() + ": " + msg
		}
		return topology.UnknownFact[[]topology.VM]("limactl list --json failed: " + msg)
	}
	vms, err := decodeLimaList(stdout)
	if err != nil {
		return topology.UnknownFact[[]topology.VM]("limactl list --json printed something nestor cannot read: " + sanitize(err.Error()))
	}
	return topology.KnownFact(vms)
}

// tail is the last n bytes of b's trimmed text, on one line (a rune cut
// at the start becomes U+FFFD in sanitize).
func tail(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return strings.Join(strings.Fields(s), " ")
}

// unknownObservation is an observation where nothing of the cluster could be
// read: every part unknown with reason, every declared layer unknown.
func unknownObservation(topo *topology.Topology, reason string) *topology.Observed {
	obs := &topology.Observed{
		ServerVersion: topology.UnknownFact[string](reason),
		Nodes:         topology.UnknownFact[[]topology.NodeState](reason),
		Layers:        []topology.LayerState{},
		Storage:       topology.UnknownFact[topology.StorageState](reason),
	}
	if topo != nil {
		for _, ref := range topo.Layers {
			obs.Layers = append(obs.Layers, topology.LayerState{Name: ref.Name, Declared: true, Health: topology.Unknown, Reason: reason})
		}
	}
	return obs
}
