package topology

import "strings"

// controlPlaneRoles are the spellings of the control-plane role, lower case
// (see IsControlPlaneRole).
var controlPlaneRoles = []string{RoleControlPlane, "master", "controlplane"}

// IsControlPlaneRole reports whether role, a node role as the API server's
// node printer derives it from the node's labels (kubernetes
// pkg/printers/internalversion/printers.go, findNodeRoles: the suffix of
// every node-role.kubernetes.io/<role> label whatever its value — "" for
// kubeadm, "true" for k3s, RKE1 and RKE2 — and the value of a
// kubernetes.io/role label), names the control plane, in the spelling of any
// distribution:
//
//   - control-plane: kubeadm since 1.20, k3s, RKE2, kind, Talos;
//   - master: the legacy spelling (kubeadm before 1.24; k3s and RKE2 still
//     set it beside control-plane; kops's kubernetes.io/role=master);
//   - controlplane: RKE1.
//
// Case is ignored. It is the one rule for "this node is a control plane"
// (the plan, discover's draft): etcd and worker are not control-plane roles —
// a node with only the etcd role (RKE1, RKE2) runs no API server, so the
// topology's two roles make it a worker.
func IsControlPlaneRole(role string) bool {
	for _, r := range controlPlaneRoles {
		if strings.EqualFold(role, r) {
			return true
		}
	}
	return false
}

// HasControlPlaneRole reports whether any of roles is a control-plane role
// (IsControlPlaneRole).
func HasControlPlaneRole(roles []string) bool {
	for _, r := range roles {
		if IsControlPlaneRole(r) {
			return true
		}
	}
	return false
}

// ReadyDetail is the Ready condition's reason and message, joined by ": "
// ("NodeStatusUnknown: Kubelet stopped posting node status."), on one
// line (runs of white space, line breaks and tabs included, are one
// space); either may be missing, and it is "" when both are.
func (n NodeState) ReadyDetail() string {
	var detail []string
	for _, s := range []string{n.ReadyReason, n.ReadyMessage} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			detail = append(detail, s)
		}
	}
	return strings.Join(detail, ": ")
}

// ReadyCondition is the word for the node's Ready condition: its status
// (True, False, Unknown) when it was read, else True for a Ready node and
// NotReady (kubectl's word) when the condition is absent or was not read.
func (n NodeState) ReadyCondition() string {
	if n.ReadyStatus != "" {
		return n.ReadyStatus
	}
	if n.Ready {
		return ConditionTrue
	}
	return "NotReady"
}

// ReadyText describes the node's Ready condition in one line for a node
// that is not Ready, each word once and without brackets, so that it reads
// well inside a bracketed reason: "Ready=Unknown, NodeStatusUnknown:
// Kubelet stopped posting node status.", "Ready=False, KubeletNotReady: …",
// or, when the condition is absent or was not read, "NotReady" (kubectl's
// word) then ReadyDetail after a comma. It is "Ready" for a Ready node.
func (n NodeState) ReadyText() string {
	if n.Ready {
		return "Ready"
	}
	s := n.ReadyCondition()
	if n.ReadyStatus != "" {
		s = "Ready=" + s
	}
	if d := n.ReadyDetail(); d != "" {
		s += ", " + d
	}
	return s
}

// CountReady returns how many of nodes are Ready (their Ready condition
// is True, NodeState.Ready): the one count of Ready nodes every view and
// format says.
func CountReady(nodes []NodeState) int {
	n := 0
	for _, st := range nodes {
		if st.Ready {
			n++
		}
	}
	return n
}
