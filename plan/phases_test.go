package plan_test

import (
	"reflect"
	"testing"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

func TestPhases(t *testing.T) {
	layers := []topology.LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}}
	want := []topology.Phase{
		{Name: "bootstrap", Kind: "bootstrap"}, {Name: "k8s", Kind: "k8s"},
		{Name: "cilium", Kind: "layer", Layer: "cilium"}, {Name: "rook-ceph", Kind: "layer", Layer: "rook-ceph"},
	}
	if got := plan.Phases(&topology.Topology{TargetKind: topology.TargetProd, Layers: layers}, plan.NodeCluster{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Phases = %+v, want %+v", got, want)
	}
}
