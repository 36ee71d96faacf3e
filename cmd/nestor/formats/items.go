package formats

import (
	"errors"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// PlanItem is one thing the machine formats report about a stack: a plan
// step, a finding, a part of ACTUAL that could not be read (an entry of
// Plan.Unknowns) or an object the provider is moving (an entry of
// Plan.Waiting). Exactly one of its fields is set.
type PlanItem struct {
	Step    *topology.Step
	Finding *topology.Finding
	Unknown *topology.UnknownPart
	Waiting *topology.WaitingObject
}

// Items returns report r's plan as PlanItems, in the report's order: the steps,
// the findings, the unknowns, then the waiting objects.
func Items(r *action.Report) []PlanItem {
	var out []PlanItem
	for i := range r.Plan.Steps {
		out = append(out, PlanItem{Step: &r.Plan.Steps[i]})
	}
	for i := range r.Plan.Findings {
		out = append(out, PlanItem{Finding: &r.Plan.Findings[i]})
	}
	for i := range r.Plan.Unknowns {
		out = append(out, PlanItem{Unknown: &r.Plan.Unknowns[i]})
	}
	for i := range r.Plan.Waiting {
		out = append(out, PlanItem{Waiting: &r.Plan.Waiting[i]})
	}
	return out
}

// Subject is what the item is about, as the plan's rules typed it.
func (it PlanItem) Subject() topology.Subject {
	switch {
	case it.Step != nil:
		return it.Step.Subject
	case it.Finding != nil:
		return it.Finding.Subject
	case it.Unknown != nil:
		return it.Unknown.Subject
	case it.Waiting != nil:
		return it.Waiting.Subject
	}
	return topology.Subject{}
}

// Rule is the item's rule id: "step/KIND" (a step kind), "finding/KIND"
// (a finding kind), "unknown" or "waiting". Rules lists them all.
func (it PlanItem) Rule() string {
	switch {
	case it.Step != nil:
		return "step/" + string(it.Step.Kind)
	case it.Finding != nil:
		return "finding/" + string(it.Finding.Kind)
	case it.Unknown != nil:
		return RuleUnknown
	}
	return RuleWaiting
}

// Level grades the item for CI, in SARIF's words: a finding keeps its
// severity (error, warning; info is "note"); a step that changes the
// cluster is a "warning" (the cluster is not what the topology declares),
// an undeclared one a "note" (information); an unknown part is a
// "warning" (nothing can be said of it, and --detailed-exitcode fails on
// it); a waiting object a "note" (the provider is moving it).
func (it PlanItem) Level() string {
	switch {
	case it.Step != nil && it.Step.IsChange():
		return LevelWarning
	case it.Step != nil:
		return LevelNote
	case it.Finding != nil:
		switch it.Finding.Severity {
		case topology.SeverityError:
			return LevelError
		case topology.SeverityWarning:
			return LevelWarning
		}
		return LevelNote
	case it.Unknown != nil:
		return LevelWarning
	}
	return LevelNote
}

// The levels of PlanItem.Level (SARIF 2.1.0 §3.27.10 result.level).
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Message is the item's text in one line: "install cnpg: not found on the
// cluster: …", "error kubelet-skew kubelet v1.34.1: …", "unknown: layer
// flannel: forbidden", "waiting: pool default: scaling".
func (it PlanItem) Message() string {
	switch {
	case it.Step != nil:
		return string(it.Step.Kind) + " " + it.Step.Target + ": " + it.Step.Reason
	case it.Finding != nil:
		return string(it.Finding.Severity) + " " + string(it.Finding.Kind) + " " + it.Finding.Subject.Text + ": " + it.Finding.Message
	case it.Unknown != nil:
		return "unknown: " + it.Unknown.String()
	case it.Waiting != nil:
		return "waiting: " + it.Waiting.String()
	}
	return ""
}

// Key returns the key of the topology (topology.Positions) the item
// concerns: its subject's key, as the plan's rules typed it (name when it
// has none). The key may not be in the topology (an undeclared node, a key
// not written): Position falls back to its parent, then to name.
func (it PlanItem) Key() string {
	if k := it.Subject().Key; k != "" {
		return k
	}
	return topology.KeyName
}

// Position returns where key was written in topology t: the key itself,
// else its parent ("nodes/x" → nodes, "kubernetes.version" → kubernetes),
// else name, the top of the file; the key whose position it is; and false
// when t has no positions (nil, or not built from a parsed file).
func Position(t *topology.Topology, key string) (topology.Position, string, bool) {
	for _, k := range keyChain(key) {
		if p, ok := t.PositionOf(k); ok {
			return p, k, true
		}
	}
	return topology.Position{}, "", false
}

// ErrorKey is the topology key an error that stopped a stack concerns: an
// endpoint refusal → endpoint, the bench kubeconfig refused for a prod stack
// → kubeconfig, the provider's cluster not the declared one → scaleway,
// anything else → name (the errors of an invalid topology carry their own
// line and column).
func ErrorKey(err error) string {
	var keyed interface{ TopologyKey() string }
	if errors.As(err, &keyed) {
		return keyed.TopologyKey()
	}
	return topology.KeyName
}

// keyChain is key, its parent (the list of "nodes/x", the section of
// "kubernetes.version"), then name.
func keyChain(key string) []string {
	chain := []string{key}
	if i := strings.Index(key, "/"); i > 0 {
		chain = append(chain, key[:i])
	} else if i := strings.LastIndex(key, "."); i > 0 {
		chain = append(chain, key[:i])
	}
	if key != topology.KeyName {
		chain = append(chain, topology.KeyName)
	}
	return chain
}
