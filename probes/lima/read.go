package lima

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

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

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
			out = append(out, probes.Sanitize(s))
			continue
		}
		var pathErr struct{ Op, Path string }
		if err := json.Unmarshal(r, &pathErr); err == nil && pathErr.Op != "" && pathErr.Path != "" {
			out = append(out, probes.Sanitize(pathErr.Op+" "+pathErr.Path+": failed (limactl gave no error text)"))
			continue
		}
		out = append(out, "an error without text (limactl printed "+probes.Sanitize(tail(r, 60))+")")
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
// An output it cannot read is an error that says where it stopped: the
// instance (counted from 1) and the byte offset in out — an output cut off
// in the middle of an instance is never read as the instances before it.
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
	entries := func() int { return len(l.vms) + len(l.notVMs) }
	// Offsets in errors count from the start of out.
	lead := int64(len(out) - len(bytes.TrimLeftFunc(out, unicode.IsSpace)))
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var start int64 // where the instance being read starts
	fail := func(err error) error {
		return limaListError(err, entries()+1, lead+start, int64(len(out)))
	}
	add := func(in limaInstance) error {
		if in.Name == "" {
			return fmt.Errorf("instance %d (starting at byte %d): it has no name", entries()+1, lead+start)
		}
		errs := limaErrors(in.Errors)
		// Names, statuses, folders and types are printed: their
		// unprintable characters are escaped, never dropped (sanitizeName),
		// so a text that was there never reads as absent.
		if in.Status == "" && in.Dir == "" {
			l.notVMs = append(l.notVMs, topology.NotVM{Name: probes.SanitizeName(in.Name), Errors: errs})
			return nil
		}
		l.vms = append(l.vms, topology.VM{Name: probes.SanitizeName(in.Name), Status: probes.SanitizeName(in.Status), Dir: probes.SanitizeName(in.Dir), VMType: probes.SanitizeName(in.VMType),
			CPUs: in.CPUs, Memory: in.Memory, Disk: in.Disk, Errors: errs})
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
			return limaList{}, fail(err)
		}
		for dec.More() {
			in, err := next()
			if err != nil {
				return limaList{}, fail(err)
			}
			if err := add(in); err != nil {
				return limaList{}, err
			}
		}
		start = dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			return limaList{}, fail(err)
		}
		end := dec.InputOffset()
		if _, err := dec.Token(); err != io.EOF {
			return limaList{}, fmt.Errorf("unexpected data after the JSON array (byte %d)", lead+end+int64(len(trimmed[end:])-len(bytes.TrimLeft(trimmed[end:], " \t\r\n"))))
		}
		return l, nil
	}
	for {
		in, err := next()
		if err == io.EOF {
			return l, nil
		}
		if err != nil {
			return limaList{}, fail(err)
		}
		if err := add(in); err != nil {
			return limaList{}, err
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
// fact — known (possibly empty: no instance prints nothing and exits 0), or
// unknown with limactl's own message when it is missing, fails or prints
// something that is not its JSON — and the listed entries that are not VMs
// (decodeLimaList; none when the VMs are unknown). limactl's warnings on
// stderr of a successful run are not read: the JSON carries the same errors.
func readVMs(ctx context.Context, run probes.Runner) (topology.VMsObserved, []topology.NotVM) {
	stdout, stderr, err := run(ctx, "limactl", "list", "--json")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return topology.UnknownFact[[]topology.VM]("limactl is not installed (not found on PATH)"), nil
		}
		if ctx.Err() != nil {
			return topology.UnknownFact[[]topology.VM]("limactl list --json did not finish: " + probes.StopWords(ctx.Err())), nil
		}
		msg := probes.Sanitize(tail(stderr, 300))
		if msg == "" {
			msg = err.Error()
		} else {
			msg = err.Error() + ": " + msg
		}
		return topology.UnknownFact[[]topology.VM]("limactl list --json failed: " + msg), nil
	}
	l, err := decodeLimaList(stdout)
	if err != nil {
		return topology.UnknownFact[[]topology.VM]("limactl list --json printed something nestor cannot read: " + probes.Sanitize(err.Error())), nil
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
