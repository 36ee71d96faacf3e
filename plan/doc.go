// Package plan builds the plan that closes the gap between what a topology
// declares and what the probes read (Build): the steps, in a dependency
// order (CheckOrder states the rules), the unknowns and the findings. It
// holds what every target kind shares — the interface a kind's own rules
// implement (Rules), the phase sequence (Phases) and the first phase not
// done (Next), the bootstrap and k8s phases of a cluster of declared nodes
// (NodeCluster), the upgrade sequence within the Kubernetes version skew
// policy (UpgradePath, KubeletSkewAllowed) and the support calendar's
// findings (JudgeSupport) — and judges the layers the same for every kind.
// The plan's types are package topology's (the shared model). It is pure:
// every input is passed in, and it does no I/O.
package plan
