package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/kapsule"
	"nestor.dev/nestor/topology"
)

// editedObservation is an observation holding one provider's object edited
// after the provider's write, as a kind's Read leaves it (derived).
func editedObservation(m topology.ProviderMarks) *topology.Observed {
	t0 := time.Date(2026, 11, 2, 8, 14, 7, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	obj := topology.NamespaceObject{Kind: "ConfigMap", Name: "coredns", Marks: map[string]string{m.Labels[0]: "coredns"}, Mode: topology.AddonEnsureExists,
		Writes: []topology.ObjectWrite{
			{Manager: m.Managers[0], Operation: "Update", Time: &t0, Fields: []topology.FieldPath{{"data", "Corefile"}}},
			{Manager: "kubectl-edit", Operation: "Update", Time: &t1, Fields: []topology.FieldPath{{"data", "Corefile"}}},
		}}
	po := &topology.ProviderObjects{Marks: m, Lists: []topology.ProviderObjectList{{ProviderResource: m.Resources[0], Objects: topology.KnownFact([]topology.NamespaceObject{obj})}}}
	po.Derive()
	return &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Nodes: topology.KnownFact([]topology.NodeState{}),
		Layers: []topology.LayerState{}, Storage: topology.KnownFact(topology.StorageState{}), ProviderObjects: po}
}

func editedFindings(r *action.Report) int {
	n := 0
	for _, f := range r.Plan.Findings {
		if f.Kind == topology.FindingProviderObjectEdited {
			n++
		}
	}
	return n
}

// TestProviderObjectsOnlyForManagedKinds: the provider's rule is a managed
// kind's: of the registered kinds only kapsule gives its marks
// (probes.ProviderMarker), so only its reads hold kube-system's lists;
// its plan judges the objects, a prod plan never does, even of an
// observation that held them. The human view counts them in ACTUAL.
func TestProviderObjectsOnlyForManagedKinds(t *testing.T) {
	for _, name := range topology.Kinds() {
		k, err := action.KindOf(&topology.Topology{TargetKind: name})
		if err != nil {
			t.Fatal(err)
		}
		_, marks := k.(probes.ProviderMarker)
		if marks != (name == topology.TargetKapsule) {
			t.Errorf("kind %s: ProviderMarker %v", name, marks)
		}
	}
	m := kapsule.Kind{}.ProviderMarks()
	if reads := probes.ProviderObjectReads(m); len(reads) != len(m.Resources) || reads[0].Namespaces[0] != "kube-system" || reads[0].Verbs[0] != "list" {
		t.Errorf("reads %+v", reads)
	}
	asOf := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

	prodTopo := goldenTopology()
	prodKind, _ := action.KindOf(prodTopo)
	if r := action.NewReport(prodKind, &probes.Opened{Topology: prodTopo}, editedObservation(m), asOf); editedFindings(r) != 0 {
		t.Errorf("a prod plan judged the provider's objects: %+v", r.Plan.Findings)
	}

	kapTopo := &topology.Topology{Path: "/stacks/lyneko-apps.yaml", Name: "lyneko-apps", TargetKind: topology.TargetKapsule,
		Scaleway: &topology.Scaleway{Region: "fr-par", ClusterID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90"}}
	r := action.NewReport(kapsule.Kind{}, &probes.Opened{Topology: kapTopo}, editedObservation(m), asOf)
	if editedFindings(r) != 1 {
		t.Fatalf("the kapsule plan: %+v", r.Plan.Findings)
	}
	var b bytes.Buffer
	Preview(&b, r, PreviewOptions{}, func(s string) string { return "nestor " + s })
	for _, want := range []string{
		"  kube-system 1 object: 1 Scaleway's (marked; 1 edited), 0 Kubernetes' own, 0 yours (not marked)\n",
		"  warning  ConfigMap kube-system/coredns: edited by kubectl-edit (Update at 2026-11-02 09:14:07 UTC: .data.Corefile), after the provider's write (kubectl-client-side-apply at 2026-11-02 08:14:07 UTC); EnsureExists: yours from now on",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the view lacks %q:\n%s", want, b.String())
		}
	}
}
