package action

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"nestor.dev/nestor/topology"
)

// Failure is a preview that made no report: the stack (nil when it did not
// load) and why. A machine format writes it as a valid document of its own
// (a SARIF run that did not succeed, a JUnit error, nestor_read_success 0);
// the exit code is the error's, whatever the format.
type Failure struct {
	Name, File string
	TargetKind topology.TargetKind
	// Status is StatusRefused, StatusUnreachable, StatusInvalid or
	// StatusInterrupted.
	Status topology.Status
	Err    error
	topo   *topology.Topology
}

// StatusInterrupted is a Failure's status when the read was cancelled.
const StatusInterrupted topology.Status = "interrupted"

// NewFailure returns the failure of a preview of stack s (nil when it did
// not load) that ended with err. A stack that did not load is named after
// the file its load error names.
func NewFailure(s *Stack, err error) *Failure {
	f := &Failure{Err: err, Status: fleetError(err)}
	if errors.Is(err, context.Canceled) {
		f.Status = StatusInterrupted
	}
	switch {
	case s != nil && s.Topology != nil:
		f.Name, f.File, f.TargetKind, f.topo = s.Name, s.Path, s.TargetKind, s.Topology
	default:
		if es := topology.AsErrors(err); len(es) > 0 && es[0].File != "" {
			f.File = es[0].File
			if abs, aerr := filepath.Abs(f.File); aerr == nil {
				f.File = abs
			}
			f.Name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f.File), ".yaml"), ".yml")
		}
	}
	return f
}

// stackDoc is one stack as the machine formats write it: its report, or
// why it has none.
type stackDoc struct {
	Name, File string
	Kind       topology.TargetKind
	Status     topology.Status
	Reason     string
	// Err is why no report was made (nil with a Report).
	Err    error
	Report *Report
	topo   *topology.Topology
}

// failed reports whether the stack has no report.
func (d stackDoc) failed() bool { return d.Report == nil }

// position returns where key is written in the stack's topology (see
// Report.Position).
func (d stackDoc) position(key string) (topology.Position, bool) {
	p, _, ok := positionIn(d.topo, key)
	return p, ok
}

func (r *Report) docs() []stackDoc {
	return []stackDoc{{Name: r.Stack.Name, File: r.Stack.File, Kind: r.Stack.TargetKind, Status: r.Status(), Report: r, topo: r.topology}}
}

func (f *FleetReport) docs() []stackDoc {
	out := make([]stackDoc, 0, len(f.Stacks))
	for _, s := range f.Stacks {
		d := stackDoc{Name: s.Name, File: s.File, Kind: s.TargetKind, Status: s.Status, Reason: s.Reason, Report: s.Report, Err: s.err, topo: s.topo}
		if s.Report != nil {
			d.topo = s.Report.topology
		} else if d.Err == nil {
			d.Err = errors.New(s.Reason)
		}
		out = append(out, d)
	}
	return out
}

func (f *Failure) docs() []stackDoc {
	return []stackDoc{{Name: f.Name, File: f.File, Kind: f.TargetKind, Status: f.Status, Reason: f.Err.Error(), Err: f.Err, topo: f.topo}}
}

// errorKey is the topology key an error that stopped a stack concerns: an
// endpoint refusal → endpoint, the bench kubeconfig refused for a prod stack
// → kubeconfig, the provider's cluster not the declared one → scaleway,
// anything else → name (the errors of an invalid topology carry their own
// line and column).
func errorKey(err error) string {
	var keyed interface{ TopologyKey() string }
	if errors.As(err, &keyed) {
		return keyed.TopologyKey()
	}
	return topology.KeyName
}

// GitRoot returns the root of the git work tree holding path (the nearest
// folder above it, symbolic links resolved, that has a .git entry: a folder,
// or a file in a linked work tree), or "" when it is in none.
func GitRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	dir := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Document is a model the machine formats of preview and fleet write:
// *Report, *FleetReport and *Failure.
type Document interface {
	WriteSARIF(io.Writer, SARIFOptions) error
	WriteJUnit(io.Writer, JUnitOptions) error
	WritePrometheus(io.Writer, PrometheusOptions) error
	WriteMarkdown(io.Writer) error
	WriteICS(io.Writer, ICSOptions) error
}

var (
	_ Document = (*Report)(nil)
	_ Document = (*FleetReport)(nil)
	_ Document = (*Failure)(nil)
)

// WriteFile writes data to path atomically: a temporary file in the same
// folder (named .NAME.tmp-*, which node_exporter's textfile collector, reading
// *.prom only, never reads), fsynced, renamed over path; an existing file
// keeps its mode (0644 for a new one). A reader sees the old file or the
// new one, never half of it.
func WriteFile(path string, data []byte) error {
	return writeFileAtomic(path, data, 0)
}

// ErrorFormatVersion is the version of the JSON (and YAML) document a
// command writes instead of its report when it made none.
const ErrorFormatVersion = 1

// MarshalJSON writes the failure as the error document of -o json (and
// yaml): {format_version, error: {kind, message, stack, file}}, kind one of
// refused, unreachable, invalid, interrupted — as Terraform's -json does,
// so a CI job that saves the output always gets a document. The exit code
// is the error's, whatever the format.
func (f *Failure) MarshalJSON() ([]byte, error) {
	type errorPart struct {
		Kind    topology.Status `json:"kind"`
		Message string          `json:"message"`
		Stack   string          `json:"stack,omitempty"`
		File    string          `json:"file,omitempty"`
	}
	msg := ""
	if f.Err != nil {
		msg = f.Err.Error()
	}
	return json.Marshal(struct {
		FormatVersion int       `json:"format_version"`
		Error         errorPart `json:"error"`
	}{ErrorFormatVersion, errorPart{Kind: f.Status, Message: msg, Stack: f.Name, File: f.File}})
}
