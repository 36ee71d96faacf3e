package plan

import (
	"reflect"
	"testing"

	"nestor.dev/nestor/topology"
)

func TestPhases(t *testing.T) {
	layers := []topology.LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}}
	want := []topology.Phase{
		{Name: "bootstrap", Kind: "bootstrap"}, {Name: "k8s", Kind: "k8s"},
		{Name: "cilium", Kind: "layer", Layer: "cilium"}, {Name: "rook-ceph", Kind: "layer", Layer: "rook-ceph"},
	}
	if got := Phases(&topology.Topology{TargetKind: topology.TargetProd, Layers: layers}, NodeCluster{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Phases = %+v, want %+v", got, want)
	}
}
