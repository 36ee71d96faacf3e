package action

import (
	"context"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// NextFormatVersion is the version of next's JSON document.
const NextFormatVersion = 1

// NextStep is next's answer: the JSON document and the source of the text.
type NextStep struct {
	FormatVersion int    `json:"format_version"`
	Stack         string `json:"stack"`
	// Phase is the first phase not done; "" when every phase is done or
	// when Unknown is true.
	Phase   string `json:"phase,omitempty"`
	Done    bool   `json:"done"`
	Unknown bool   `json:"unknown"`
	Why     string `json:"why"`
	Run     string `json:"run,omitempty"`
}

// Next is `nestor next`: it reads the stack as preview does (read-only) and
// names the first phase that is not done (plan.Next), why, and what
// runs it (RUNBOOK.md's phase table).
type Next struct {
	Config
	Selection Selection
}

// Run returns next's answer for the selected stack. Errors: as Preview.Run.
func (n Next) Run(ctx context.Context) (*NextStep, error) {
	s, err := n.LoadStack(n.Selection)
	if err != nil {
		return nil, err
	}
	op, err := n.Open(ctx, s, OpenOptions{})
	if err != nil {
		return nil, err
	}
	obs, _, err := read(ctx, s.Kind, op, probes.ReadAll)
	if err != nil {
		return nil, err
	}
	return NewNextStep(s, obs, op.NoTarget), nil
}

// NewNextStep returns next's answer, from plan.Next: what runs the phase,
// as command lines for stack s read as obs; none is why it has no target
// (nil when it has one), whose Fix (noTargetFix) is what to run first.
func NewNextStep(s *Stack, obs *topology.Observed, none *probes.NoTarget) *NextStep {
	t := s.Topology
	np := plan.Next(t, obs, plan.Build(t, obs, s.Kind, plan.Options{}), s.Kind)
	n := &NextStep{FormatVersion: NextFormatVersion, Stack: t.Name, Done: np.Done, Unknown: np.Unknown, Why: np.Why}
	switch {
	case obs.NoTarget && none != nil && none.Fix != "":
		n.Run = "give the stack a target first: " + none.Fix
	case obs.NoTarget:
		n.Run = "give the stack a target first (see the reason), then run `" + s.Suggest("next") + "` again"
	case np.Unknown:
		n.Run = "make the target readable first (see the reason), then run `" + s.Suggest("next") + "` again; do not install anything on a guess"
	case !np.Done:
		n.Phase = np.Phase.Name
		n.Run = phaseRunbook(s, np.Phase)
	}
	return n
}

// phaseRunbook says what runs phase p of stack s (RUNBOOK.md's phase
// table): the kind's words for its own phases, the layer's otherwise.
func phaseRunbook(s *Stack, p topology.Phase) string {
	if p.Kind != topology.PhaseKindLayer {
		return s.Kind.Runbook(s.Topology, p, s.Suggest)
	}
	if def, ok := topology.CatalogLayer(p.Layer); ok {
		return "RUNBOOK.md § layers: install or repair " + def.Name + " (" + def.Source + "), then `nestor preview`"
	}
	return "RUNBOOK.md § layers: install or repair the custom layer " + p.Layer + ", then `nestor preview`"
}
