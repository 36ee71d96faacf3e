package topology

// Phase names and kinds. A layer phase is named after its layer; the
// phases before the layers are each target kind's (plan.Rules.OwnPhases).
const (
	PhaseUp        = "up"
	PhaseBootstrap = "bootstrap"
	PhaseK8s       = "k8s"

	PhaseKindUp        = "up"
	PhaseKindBootstrap = "bootstrap"
	PhaseKindK8s       = "k8s"
	PhaseKindLayer     = "layer"
)

// Phase is one step of a stack's expected sequence. Kind is the phase's
// kind (up, bootstrap, k8s, cluster, pools: a target kind's own phases; or
// layer); Name is the same word for a kind's own phase and the layer's name
// for a layer phase, whose Layer is that name too ("" otherwise).
type Phase struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Layer string `json:"layer,omitempty"`
}
