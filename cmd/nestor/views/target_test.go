package views

import (
	"bytes"
	"strings"
	"testing"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// TestGuardViewNamesTheNodesNotReady: the confirmation says which nodes
// are not Ready, with their condition, not only how many.
func TestGuardViewNamesTheNodesNotReady(t *testing.T) {
	v := probes.GuardView{Version: topology.KnownFact("v1.37.2"), Nodes: topology.KnownFact([]topology.NodeState{
		{Name: "demo1", Ready: true}, {Name: "demo2", Ready: true},
		{Name: "demo3", ReadyStatus: "Unknown", ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status."},
		{Name: "demo4", Ready: true},
	})}
	var b bytes.Buffer
	printTargetRead(&b, v, palette{})
	// The Ready list names the Ready nodes only: demo3 is on its own line.
	want := "  server      v1.37.2\n  nodes       4 seen, 3 Ready: demo1, demo2, demo4\n  not Ready   demo3 (Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status.)\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	v.Nodes.Value = v.Nodes.Value[:2]
	b.Reset()
	printTargetRead(&b, v, palette{})
	if !strings.Contains(b.String(), "nodes       2 seen, 2 Ready: demo1, demo2\n") || strings.Contains(b.String(), "not Ready") {
		t.Errorf("all Ready:\n%s", b.String())
	}
	v.Nodes.Value = []topology.NodeState{{Name: "demo1", ReadyStatus: "False", ReadyReason: "KubeletNotReady"}}
	b.Reset()
	printTargetRead(&b, v, palette{})
	if !strings.Contains(b.String(), "nodes       1 seen, 0 Ready\n  not Ready   demo1") {
		t.Errorf("none Ready:\n%s", b.String())
	}
}
