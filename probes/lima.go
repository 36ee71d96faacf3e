package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
// name, status, dir, vmType, cpus, memory and disk in bytes, errors; the
// PIDs are omitted when the instance is stopped).
type limaInstance struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Dir    string `json:"dir"`
	VMType string `json:"vmType"`
	CPUs   int    `json:"cpus"`
	Memory int64  `json:"memory"`
	Disk   int64  `json:"disk"`
	// Errors are strings since lima's Instance.MarshalJSON; older releases
	// marshalled the Go error values themselves, as {} (see limaErrors).
	Errors []json.RawMessage `json:"errors"`
}

// limaErrors returns the text of each of an instance's errors: a JSON
// string as it is; the Go error value older limactl printed as it was —
// {"Op":"open","Path":"…","Err":20} for a file error (fs.PathError), {} for
// the others — as what can be read of it, saying limactl gave no text.
// Control characters are removed.
func limaErrors(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		var s string
		if err := json.Unmarshal(r, &s); err == nil {
			out = append(out, sanitize(s))
			continue
		}
		var pathErr struct{ Op, Path string }
		if err := json.Unmarshal(r, &pathErr); err == nil && pathErr.Op != "" && pathErr.Path != "" {
			out = append(out, sanitize(pathErr.Op+" "+pathErr.Path+": failed (limactl gave no error text)"))
			continue
		}
		out = append(out, "an error without text (limactl printed "+sanitize(tail(r, 60))+")")
	}
	return out
}

// limaList is what `limactl list --json` listed: the Lima instances, and
// the entries that are not instances (topology.NotVM).
type limaList struct {
	vms    []topology.VM
	notVMs []topology.NotVM
}

// decodeLimaList decodes the output of `limactl list --json` in any of the
// forms lima has printed: one JSON object per line (today), pretty-printed
// objects back to back (older releases), or one JSON array. Empty output
// (only white space) is no instance. The order of the output is kept.
//
// An entry with neither a status nor a dir is not an instance: limactl lists
// every entry of its home folder, and inspecting a stray file there (a
// docker.yaml beside the instances) fails before the instance's folder is
// known (lima-vm/lima store.Inspect leaves Status and Dir empty and records
// the error). It goes to notVMs with its errors, never to vms. Every
// instance keeps its errors (why it is Broken).
func decodeLimaList(out []byte) (limaList, error) {
	l := limaList{vms: []topology.VM{}}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return l, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	add := func(in limaInstance) error {
		if in.Name == "" {
			return errors.New("an instance has no name")
		}
		errs := limaErrors(in.Errors)
		if in.Status == "" && in.Dir == "" {
			l.notVMs = append(l.notVMs, topology.NotVM{Name: sanitize(in.Name), Errors: errs})
			return nil
		}
		l.vms = append(l.vms, topology.VM{Name: in.Name, Status: in.Status, Dir: in.Dir, VMType: in.VMType,
			CPUs: in.CPUs, Memory: in.Memory, Disk: in.Disk, Errors: errs})
		return nil
	}
	if trimmed[0] == '[' {
		if _, err := dec.Token(); err != nil {
			return limaList{}, err
		}
		for dec.More() {
			var in limaInstance
			if err := dec.Decode(&in); err != nil {
				return limaList{}, err
			}
			if err := add(in); err != nil {
				return limaList{}, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return limaList{}, err
		}
		if _, err := dec.Token(); err != io.EOF {
			return limaList{}, errors.New("unexpected data after the JSON array")
		}
		return l, nil
	}
	for {
		var in limaInstance
		err := dec.Decode(&in)
		if err == io.EOF {
			return l, nil
		}
		if err != nil {
			return limaList{}, err
		}
		if err := add(in); err != nil {
			return limaList{}, err
		}
	}
}

// readVMs runs `limactl list --json` through run and returns the VMs as a
// fact — known (possibly empty: no instance prints nothing and exits 0), or
// unknown with limactl's own message when it is missing, fails or prints
// something that is not its JSON — and the listed entries that are not VMs
// (decodeLimaList; none when the VMs are unknown). limactl's warnings on
// stderr of a successful run are not read: the JSON carries the same errors.
func readVMs(ctx context.Context, run Runner) (topology.VMsObserved, []topology.NotVM) {
	stdout, stderr, err := run(ctx, "limactl", "list", "--json")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return topology.UnknownFact[[]topology.VM]("limactl is not installed (not found on PATH)"), nil
		}
		if ctx.Err() != nil {
			return topology.UnknownFact[[]topology.VM]("limactl list --json did not finish: " + ctx.Err().Error()), nil
		}
		msg := sanitize(tail(stderr, 300))
		if msg == "" {
			msg = err.Error()
		} else {
			msg = err.Error() + ": " + msg
		}
		return topology.UnknownFact[[]topology.VM]("limactl list --json failed: " + msg), nil
	}
	l, err := decodeLimaList(stdout)
	if err != nil {
		return topology.UnknownFact[[]topology.VM]("limactl list --json printed something nestor cannot read: " + sanitize(err.Error())), nil
	}
	return topology.KnownFact(l.vms), l.notVMs
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

// ProbeLimaWith observes a lima stack (DESIGN.md, target_kind lima):
//
//   - VMs: `limactl list --json` run through run; every instance is kept
//     with its errors (the plan picks those named like declared nodes).
//     limactl missing or failing → VMs unknown with its message (control
//     characters removed). NotVMs: the entries it listed that are not
//     instances (decodeLimaList), kept apart.
//   - nodes and layers: through the bench kubeconfig only,
//     topo.BenchKubeconfig(home) — never --kubeconfig, KUBECONFIG or
//     ~/.kube/config. No file there → the server version, the nodes, every
//     declared layer and the storage are unknown with "no bench kubeconfig
//     at PATH: the bench cluster is not bootstrapped yet" (never zero nodes).
//     Otherwise LoadTargetWith(bench, o) — o.UserAgent is nestor's,
//     o.Context picks a context of the bench kubeconfig ("" for its
//     current-context), o.Kube.Timeout bounds the whole read (0 means
//     DefaultTimeout; ctx's deadline applies when sooner), o.Interactive as
//     LoadTargetWith says — then ProbeTarget (a bench needs no
//     confirmation: everything is read at once).
//
// A kubeconfig that cannot be loaded makes the cluster parts unknown with
// the load error. It never returns nil.
func ProbeLimaWith(ctx context.Context, run Runner, topo *topology.Topology, home string, o LoadOptions) *topology.Observed {
	vms, notVMs := readVMs(ctx, run)

	bench := topo.BenchKubeconfig(home)
	exists, err := statFile(bench)
	if err != nil {
		obs := unknownObservation(topo, fmt.Sprintf("cannot read the bench kubeconfig %s: %v", bench, err))
		obs.VMs, obs.NotVMs = &vms, notVMs
		return obs
	}
	if !exists {
		obs := unknownObservation(topo, "no bench kubeconfig at "+bench+" (the bench cluster has not been bootstrapped, or lima.kubeconfig: names another file)")
		obs.NoBenchCluster = true
		obs.VMs, obs.NotVMs = &vms, notVMs
		return obs
	}
	kc := Kubeconfig{Paths: []string{bench}, Source: SourceBench, Detail: "the bench kubeconfig"}
	t, err := LoadTargetWith(kc, o)
	if err != nil {
		obs := unknownObservation(topo, err.Error())
		obs.VMs, obs.NotVMs = &vms, notVMs
		return obs
	}
	obs, _ := ProbeTarget(ctx, t, topo)
	obs.VMs, obs.NotVMs = &vms, notVMs
	return obs
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

// statFile reports whether p exists as a file (used by the lima prober).
func statFile(p string) (bool, error) {
	_, err := os.Stat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}
