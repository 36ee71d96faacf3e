package plan

import "nestor.dev/nestor/topology"

// Phases returns t's expected phase sequence: the target kind's own phases
// (rules.OwnPhases: prod bootstrap → k8s, lima up → bootstrap → k8s,
// kapsule cluster → pools), then one phase per declared layer, in order.
func Phases(t *topology.Topology, rules Rules) []topology.Phase {
	own := rules.OwnPhases(t)
	out := make([]topology.Phase, 0, len(own)+len(t.Layers))
	out = append(out, own...)
	for _, l := range t.Layers {
		out = append(out, topology.Phase{Name: l.Name, Kind: topology.PhaseKindLayer, Layer: l.Name})
	}
	return out
}
