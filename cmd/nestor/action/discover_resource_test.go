package action

import (
	"bytes"
	"testing"

	"nestor.dev/nestor/topology"
)

// TestWriteLayerRefsKeepsResource: a draft keeps a custom layer's
// detect.resource, and the draft's layers parse back to the same refs.
func TestWriteLayerRefsKeepsResource(t *testing.T) {
	refs := []topology.LayerRef{
		{Name: "cilium"},
		{Name: "widgets", Detect: &topology.Detect{Deployment: "apps/widget-operator", Resource: &topology.ResourceRef{APIVersion: "example.io/v1", Kind: "Widget", Namespace: "apps", Name: "main"}}},
		{Name: "things", Detect: &topology.Detect{Resource: &topology.ResourceRef{APIVersion: "things.example.com/v1beta2", Kind: "ThingCluster", Name: "prod"}}},
	}
	var b bytes.Buffer
	b.WriteString("name: s\ntarget_kind: prod\nnodes:\n  - {name: n1, role: control-plane}\n")
	writeLayerRefs(&b, refs)
	tp, err := topology.Parse("s.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("the draft does not parse: %v\n%s", err, b.String())
	}
	for i, want := range refs {
		got := tp.Layers[i]
		if got.Name != want.Name || (want.Detect == nil) != (got.Detect == nil) {
			t.Fatalf("layer %d: %+v, want %+v", i, got, want)
		}
		if want.Detect != nil && (*got.Detect.Resource != *want.Detect.Resource || got.Detect.Deployment != want.Detect.Deployment) {
			t.Errorf("layer %s: detect %+v (resource %+v), want %+v", want.Name, got.Detect, got.Detect.Resource, want.Detect.Resource)
		}
	}
}
