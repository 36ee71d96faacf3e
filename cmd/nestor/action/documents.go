package action

import (
	"context"
	"encoding/json"
	"errors"
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
	// Outcome is OutcomeRefused, OutcomeUnreachable, OutcomeInvalid or
	// OutcomeInterrupted.
	Outcome topology.Outcome
	Err     error
	// Topology is the stack's topology when it loaded (nil otherwise).
	Topology *topology.Topology
	// Command is the command that made no report: "preview" when "", or
	// "fleet" (whose stacks were not read at all: no stacks folder, a name
	// that matches no stack).
	Command string
}

// Title is the failed command as the formats head it: "nestor preview",
// "nestor fleet".
func (f *Failure) Title() string {
	if f.Command == "" {
		return "nestor preview"
	}
	return "nestor " + f.Command
}

// OutcomeInterrupted is a Failure's outcome when the read was cancelled.
const OutcomeInterrupted topology.Outcome = "interrupted"

// NewFailure returns the failure of a preview of stack s (nil when it did
// not load) that ended with err. A stack that did not load is named after
// the file its load error names.
func NewFailure(s *Stack, err error) *Failure {
	f := &Failure{Err: err, Outcome: fleetError(err)}
	if errors.Is(err, context.Canceled) {
		f.Outcome = OutcomeInterrupted
	}
	switch {
	case s != nil && s.Topology != nil:
		f.Name, f.File, f.TargetKind, f.Topology = s.Name, s.Path, s.TargetKind, s.Topology
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

// StackDoc is one stack as the machine formats write it (package
// formats): its report, or why it has none.
type StackDoc struct {
	Name, File string
	Kind       topology.TargetKind
	Outcome    topology.Outcome
	Reason     string
	// Err is why no report was made (nil with a Report).
	Err    error
	Report *Report
	// Topology is the stack's topology when it loaded (nil otherwise): the
	// formats locate a claim, or the error, in its file.
	Topology *topology.Topology
}

// Failed reports whether the stack has no report.
func (d StackDoc) Failed() bool { return d.Report == nil }

// Documents is a model the machine formats write: *Report (one stack),
// *FleetReport (every stack of a fleet) and *Failure (a preview that made
// no report). Docs returns its stacks in the model's order.
type Documents interface {
	Docs() []StackDoc
}

var (
	_ Documents = (*Report)(nil)
	_ Documents = (*FleetReport)(nil)
	_ Documents = (*Failure)(nil)
)

// Docs returns the report's one stack.
func (r *Report) Docs() []StackDoc {
	return []StackDoc{{Name: r.Stack.Name, File: r.Stack.File, Kind: r.Stack.TargetKind, Outcome: r.Outcome(), Report: r, Topology: r.Topology}}
}

// Docs returns every stack of the fleet, by the fleet's order; a stack
// without a report carries its error (its Reason when none was kept).
func (f *FleetReport) Docs() []StackDoc {
	out := make([]StackDoc, 0, len(f.Stacks))
	for _, s := range f.Stacks {
		d := StackDoc{Name: s.Name, File: s.File, Kind: s.TargetKind, Outcome: s.Outcome, Reason: s.Reason, Report: s.Report, Err: s.Err, Topology: s.Topology}
		if s.Report != nil {
			d.Topology = s.Report.Topology
		} else if d.Err == nil {
			d.Err = errors.New(s.Reason)
		}
		out = append(out, d)
	}
	return out
}

// Docs returns the failed stack, without a report.
func (f *Failure) Docs() []StackDoc {
	return []StackDoc{{Name: f.Name, File: f.File, Kind: f.TargetKind, Outcome: f.Outcome, Reason: f.Err.Error(), Err: f.Err, Topology: f.Topology}}
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
		Kind    topology.Outcome `json:"kind"`
		Message string           `json:"message"`
		Stack   string           `json:"stack,omitempty"`
		File    string           `json:"file,omitempty"`
	}
	msg := ""
	if f.Err != nil {
		msg = f.Err.Error()
	}
	return json.Marshal(struct {
		FormatVersion int       `json:"format_version"`
		Error         errorPart `json:"error"`
	}{ErrorFormatVersion, errorPart{Kind: f.Outcome, Message: msg, Stack: f.Name, File: f.File}})
}
