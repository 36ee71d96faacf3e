package action

import (
	"fmt"
	"io"
	"strings"

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
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

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
	if s.TargetKind == topology.TargetLima {
		if none != nil {
			return nil, fmt.Errorf("stack %s: %v; see `%s`; nothing exported", s.Name, none, s.Suggest("next"))
		}
		r.Variables = append(r.Variables, EnvVar{Name: "KUBECONFIG", Value: kc.Paths[0]})
		r.Notes = append(r.Notes, fmt.Sprintf("stack %s (lima): KUBECONFIG is the bench kubeconfig", s.Name))
		return r, nil
	}
	r.Notes = append(r.Notes, fmt.Sprintf("stack %s is %s: nestor env exports nothing for it (KUBECONFIG is left as it is).", s.Name, s.TargetKind))
	if s.TargetKind == topology.TargetKapsule {
		r.Notes = append(r.Notes, fmt.Sprintf("nestor reads the cluster %s (%s) through the provider's API.", s.Scaleway.ClusterID, s.Scaleway.Region))
		if kc.None() {
			r.Notes = append(r.Notes, fmt.Sprintf("no kubeconfig for the layers: `scw k8s kubeconfig install %s region=%s` writes one; declare it as kubeconfig: in %s.", s.Scaleway.ClusterID, s.Scaleway.Region, s.Path))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("the layers inside the cluster through %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc)))
		}
		return r, nil
	}
	switch {
	case none != nil && none.Kind == probes.NoKubeconfig:
		r.Notes = append(r.Notes, fmt.Sprintf("nestor has no kubeconfig for it: add `kubeconfig: ~/.kube/%s.config` to %s, then `%s`.", s.Name, s.Path, s.Suggest("discover --cp "+FirstControlPlane(s.Topology))))
		return r, nil
	case none != nil:
		r.Notes = append(r.Notes, fmt.Sprintf("nestor reads %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc)))
		r.Notes = append(r.Notes, fmt.Sprintf("it does not exist yet: fetch it with `%s`.", s.Suggest("discover --cp "+FirstControlPlane(s.Topology))))
		return r, nil
	}
	r.Notes = append(r.Notes, fmt.Sprintf("nestor reads %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc)))
	if kc.Source == probes.SourceEnv {
		r.Notes = append(r.Notes, "note: the exported KUBECONFIG beats the topology's kubeconfig:; unset it if it is not this stack's.")
	}
	return r, nil
}

// WriteShell writes r's exports on out in shell's syntax (bash, zsh or
// fish) and its notes on log as shell comments.
func (r *EnvReport) WriteShell(out, log io.Writer, shell string) {
	for _, v := range r.Variables {
		if shell == "fish" {
			fmt.Fprintf(out, "set -gx %s %s;\n", v.Name, ShellQuote("fish", v.Value))
		} else {
			fmt.Fprintf(out, "export %s=%s\n", v.Name, ShellQuote("sh", v.Value))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(log, "# %s\n", n)
	}
}
