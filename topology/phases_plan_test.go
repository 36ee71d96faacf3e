package topology

import (
	"reflect"
	"testing"
)

func TestPhases(t *testing.T) {
	layers := []LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}}
	want := []Phase{
		{Name: "bootstrap", Kind: "bootstrap"}, {Name: "k8s", Kind: "k8s"},
		{Name: "cilium", Kind: "layer", Layer: "cilium"}, {Name: "rook-ceph", Kind: "layer", Layer: "rook-ceph"},
	}
	if got := Phases(&Topology{TargetKind: TargetProd, Layers: layers}, NodeCluster{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Phases = %+v, want %+v", got, want)
	}
}
