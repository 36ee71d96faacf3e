package topology

import (
	"testing"
)

func TestIsControlPlaneRole(t *testing.T) {
	for _, r := range []string{"control-plane", "master", "controlplane", "Control-Plane", "MASTER"} {
		if !IsControlPlaneRole(r) {
			t.Errorf("IsControlPlaneRole(%q) = false, want true", r)
		}
	}
	for _, r := range []string{"etcd", "worker", "", "control", "control_plane", "masters", "storage", "node", "ingress"} {
		if IsControlPlaneRole(r) {
			t.Errorf("IsControlPlaneRole(%q) = true, want false", r)
		}
	}
	if HasControlPlaneRole(nil) || HasControlPlaneRole([]string{"etcd", "worker"}) || !HasControlPlaneRole([]string{"etcd", "master"}) {
		t.Error("HasControlPlaneRole disagrees with IsControlPlaneRole")
	}
}

// TestReadyText: the Ready condition in one line, each word once and no
// bracket of its own (it is written inside the plan's bracketed reason).
func TestReadyText(t *testing.T) {
	for _, tc := range []struct {
		n    NodeState
		want string
	}{
		{NodeState{Ready: true, ReadyStatus: ConditionTrue}, "Ready"},
		{NodeState{ReadyStatus: ConditionUnknown, ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status."}, "Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status."},
		{NodeState{ReadyStatus: ConditionFalse, ReadyReason: "KubeletNotReady"}, "Ready=False, KubeletNotReady"},
		{NodeState{ReadyStatus: ConditionFalse}, "Ready=False"},
		{NodeState{}, "NotReady"},
		{NodeState{ReadyMessage: "the Ready condition could not be read: forbidden"}, "NotReady, the Ready condition could not be read: forbidden"},
	} {
		if got := tc.n.ReadyText(); got != tc.want {
			t.Errorf("ReadyText(%+v) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
