package action

import (
	"testing"

	"nestor.dev/nestor/topology"
)

// Every target kind a topology may declare has its implementation in the
// registry, under its own name.
func TestRegistryCoversEveryKind(t *testing.T) {
	for _, k := range topology.Kinds() {
		impl, err := KindOf(&topology.Topology{Path: "x.yaml", TargetKind: k})
		if err != nil {
			t.Errorf("target_kind %s: %v", k, err)
			continue
		}
		if impl.Name() != k {
			t.Errorf("target_kind %s is implemented by %s", k, impl.Name())
		}
	}
	if _, err := KindOf(&topology.Topology{Path: "x.yaml", TargetKind: "mars"}); err == nil {
		t.Error("an unknown kind has an implementation")
	}
}
