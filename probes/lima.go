package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"

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
func decodeLimaList(out []byte) ([]topology.VM, error) {
	vms := []topology.VM{}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return vms, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	add := func(in limaInstance) error {
		if in.Name == "" {
			return errors.New("an instance has no name")
		}
		vms = append(vms, topology.VM{Name: in.Name, Status: in.Status, Dir: in.Dir, VMType: in.VMType,
			CPUs: in.CPUs, Memory: in.Memory, Disk: in.Disk})
		return nil
	}
	if trimmed[0] == '[' {
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		for dec.More() {
			var in limaInstance
			if err := dec.Decode(&in); err != nil {
				return nil, err
			}
			if err := add(in); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, errors.New("unexpected data after the JSON array")
		}
		return vms, nil
	}
	for {
		var in limaInstance
		err := dec.Decode(&in)
		if err == io.EOF {
			return vms, nil
		}
		if err != nil {
			return nil, err
		}
		if err := add(in); err != nil {
			return nil, err
		}
	}
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
