package topology

// Phase names and kinds (DESIGN.md "Phases"). A layer phase is named after
// its layer.
const (
	PhaseUp        = "up"
	PhaseBootstrap = "bootstrap"
	PhaseK8s       = "k8s"

	PhaseKindUp        = "up"
	PhaseKindBootstrap = "bootstrap"
	PhaseKindK8s       = "k8s"
	PhaseKindLayer     = "layer"
)

// Phase is one step of a stack's expected sequence. Kind is up, bootstrap,
// k8s or layer; Name is the same word for the fixed phases and the layer's
// name for a layer phase, whose Layer is that name too ("" otherwise).
type Phase struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Layer string `json:"layer,omitempty"`
}

// Phases returns t's expected phase sequence: for lima, up (the VMs exist and
// run), bootstrap, k8s, then one phase per declared layer in order; for prod
// the same without up — the machines pre-exist and a prod stack never has a
// VM phase; for kapsule, cluster, pools, then the layers.
func Phases(t *Topology) []Phase {
	out := make([]Phase, 0, 3+len(t.Layers))
	if t.TargetKind == TargetKapsule {
		// kapsule: cluster → pools → layers (DESIGN.md "Phases"): the
		// provider runs the control plane and the nodes.
		out = append(out, Phase{Name: PhaseCluster, Kind: PhaseKindCluster}, Phase{Name: PhasePools, Kind: PhaseKindPools})
		for _, l := range t.Layers {
			out = append(out, Phase{Name: l.Name, Kind: PhaseKindLayer, Layer: l.Name})
		}
		return out
	}
	if t.TargetKind == TargetLima {
		out = append(out, Phase{Name: PhaseUp, Kind: PhaseKindUp})
	}
	out = append(out,
		Phase{Name: PhaseBootstrap, Kind: PhaseKindBootstrap},
		Phase{Name: PhaseK8s, Kind: PhaseKindK8s},
	)
	for _, l := range t.Layers {
		out = append(out, Phase{Name: l.Name, Kind: PhaseKindLayer, Layer: l.Name})
	}
	return out
}
