package action

import (
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// EnvFormatVersion is the version of env's JSON document.
const EnvFormatVersion = 1

// EnvReport is what `nestor env` exports for a stack: the variables (lima:
// KUBECONFIG, the bench kubeconfig; prod: none) and the notes that go to
// stderr in the shell form.
type EnvReport struct {
	FormatVersion int                 `json:"format_version"`
	Stack         string              `json:"stack"`
	TargetKind    topology.TargetKind `json:"target_kind"`
	// Variables are the exports, in order ([] for prod: nestor env never
	// exports the bench, or anything else, for a prod stack).
	Variables []EnvVar `json:"variables"`
	// Notes say which kubeconfig nestor reads and how to get it.
	Notes []string `json:"notes"`
}

// EnvVar is one exported variable.
type EnvVar = probes.EnvVar

// Env is `nestor env`: it resolves the stack's kubeconfig (never opening
// the target) and says what to export.
type Env struct {
	Config
	Selection Selection
}

// Run returns the exports of the selected stack. Errors: the stack does not
// load; a lima stack's bench kubeconfig does not exist (nothing to export);
// a kubeconfig rule fails.
func (e Env) Run() (*EnvReport, error) {
	s, err := e.LoadStack(e.Selection)
	if err != nil {
		return nil, err
	}
	r := &EnvReport{FormatVersion: EnvFormatVersion, Stack: s.Name, TargetKind: s.TargetKind, Variables: []EnvVar{}, Notes: []string{}}
	kc, none, err := e.Resolve(s)
	if err != nil {
		return nil, err
	}
	vars, notes, err := s.Kind.Env(s.Topology, kc, none, s.Suggest)
	if err != nil {
		return nil, err
	}
	r.Variables = append(r.Variables, vars...)
	r.Notes = append(r.Notes, notes...)
	return r, nil
}
