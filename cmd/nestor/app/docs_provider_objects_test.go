package app

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"nestor.dev/nestor/topology"
)

// TestProviderObjectsDocumented: actual.provider_objects, as preview -o
// json writes it with every field set, has exactly the fields
// docs/topology.md lists at each level.
func TestProviderObjectsDocumented(t *testing.T) {
	now := time.Date(2026, 11, 2, 8, 14, 7, 0, time.UTC)
	w := topology.ObjectWrite{Manager: "m", Operation: "Update", Subresource: "status", Time: &now, Fields: []topology.FieldPath{{"data"}}, Unread: "x"}
	obj := topology.NamespaceObject{Kind: "ConfigMap", Name: "coredns", Marks: map[string]string{"a": "b"}, Mode: "Reconcile", Writes: []topology.ObjectWrite{w},
		Owner: topology.OwnerProvider, ProviderWrite: &w, Edits: []topology.ObjectWrite{w}, Unjudged: "x"}
	po := topology.ProviderObjects{
		Marks: topology.ProviderMarks{Provider: "p", Namespace: "kube-system", Resources: []topology.ProviderResource{{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}},
			Labels: []string{"a"}, ModeKey: "k", Managers: []string{"m"}, ManagersMark: true, Source: "s"},
		Lists: []topology.ProviderObjectList{{ProviderResource: topology.ProviderResource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, Objects: topology.KnownFact([]topology.NamespaceObject{obj})}},
	}
	keys := func(v any) []string {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return jsonKeys(t, raw)
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for _, c := range []struct {
		doc string
		v   any
	}{
		{"provider_objects", po},
		{"provider_objects.marks", po.Marks},
		{"provider_objects.object", obj},
		{"provider_objects.write", w},
		{"provider_objects.counts", po.Counts},
	} {
		if got, want := keys(c.v), sorted(documented(t, c.doc)); !slices.Equal(got, want) {
			t.Errorf("%s has %v, docs/topology.md documents %v", c.doc, got, want)
		}
	}
	list := keys(po.Lists[0])
	if want := []string{"group", "kind", "objects", "resource", "version"}; !slices.Equal(list, want) {
		t.Errorf("a list has %v, docs/topology.md says %v", list, want)
	}
}
