package topology

// Phases returns t's expected phase sequence: the target kind's own phases
// (rules.OwnPhases: prod bootstrap → k8s, lima up → bootstrap → k8s,
// kapsule cluster → pools), then one phase per declared layer, in order.
func Phases(t *Topology, rules KindRules) []Phase {
	own := rules.OwnPhases(t)
	out := make([]Phase, 0, len(own)+len(t.Layers))
	out = append(out, own...)
	for _, l := range t.Layers {
		out = append(out, Phase{Name: l.Name, Kind: PhaseKindLayer, Layer: l.Name})
	}
	return out
}
