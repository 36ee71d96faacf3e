package prod

import "nestor.dev/nestor/plan"

// Rules are the prod kind's own phases and plan: an existing cluster of
// the declared nodes, bootstrap then k8s (plan.NodeCluster). There is
// no up phase: the machines pre-exist, and a prod plan never proposes to
// create or start a VM.
type Rules struct{ plan.NodeCluster }
