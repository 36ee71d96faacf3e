package views

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/topology"
)

// TestDiscoverNodesReady: discover's NODES section is preview's node table
// (the same columns in the same order), READY written as preview writes it (the condition's status, NotReady when unread, SchedulingDisabled
// for a cordoned node) and ends a node that is not Ready with the cluster's
// reason and message.
func TestDiscoverNodesReady(t *testing.T) {
	r := &action.DiscoverReport{Nodes: topology.KnownFact([]topology.NodeState{
		{Name: "cp1", Ready: true, ReadyStatus: "True", Roles: []string{"control-plane"}, KubeletVersion: "v1.37.2", InternalIP: "10.0.0.1"},
		{Name: "w1", ReadyStatus: "False", ReadyReason: "KubeletNotReady", ReadyMessage: "PLEG is not healthy", Unschedulable: true, Roles: []string{"worker"}, KubeletVersion: "v1.37.2", InternalIP: "10.0.0.2"},
		{Name: "w2", Roles: []string{}, KubeletVersion: "v1.37.2"},
	})}
	var b bytes.Buffer
	discoverNodes(&b, r, palette{})
	out := b.String()
	for _, re := range []string{
		`(?m)^NODES \(3, 1 Ready\)$`,
		`(?m)^\s+NAME\s+READY\s+ROLES\s+KUBELET\s+INTERNAL-IP$`,
		`(?m)^\s+cp1\s+True\s+control-plane\s+v1\.37\.2\s+10\.0\.0\.1$`,
		`(?m)^\s+w1\s+False,SchedulingDisabled\s+worker\s+v1\.37\.2\s+10\.0\.0\.2\s+KubeletNotReady: PLEG is not healthy$`,
		`(?m)^\s+w2\s+NotReady\s+<none>\s+v1\.37\.2\s+<none>`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matches %s in:\n%s", re, out)
		}
	}
}

// TestReadyDetailOneLine: a condition message with line breaks and tabs
// stays on its row.
func TestReadyDetailOneLine(t *testing.T) {
	n := topology.NodeState{Name: "w1", ReadyStatus: "False", ReadyReason: "KubeletNotReady", ReadyMessage: "container runtime\nnetwork not ready:\tcni\n"}
	_, why := readyCell(n, palette{})
	if want := "KubeletNotReady: container runtime network not ready: cni"; why != want {
		t.Errorf("readyCell why = %q, want %q", why, want)
	}
}

// A search for layers that could not look everywhere says so beside its
// count: "0" alone would read as "none runs".
func TestDiscoverLayersSearchIncomplete(t *testing.T) {
	var b bytes.Buffer
	r := &action.DiscoverReport{Layers: []topology.LayerState{}, LayersUnread: "forbidden (user ro cannot list customresourcedefinitions)"}
	discoverLayers(&b, r, palette{})
	if got := b.String(); !strings.Contains(got, "LAYERS DETECTED (0 found, the search incomplete: unknown") || !strings.Contains(got, "cannot list customresourcedefinitions") {
		t.Errorf("got:\n%s", got)
	}
	b.Reset()
	r.LayersUnread = ""
	discoverLayers(&b, r, palette{})
	if got := b.String(); !strings.HasPrefix(got, "\nLAYERS DETECTED (0)\n") {
		t.Errorf("a complete search: %q", got)
	}
}
