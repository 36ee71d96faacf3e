package topology

import (
	"strings"
	"testing"
)

// TestNoObjectRestsOnPresence: "runs, but has no CephCluster" (no
// Prometheus resource, no Longhorn Node) is degraded only when the layer
// is known to run. When its workloads could not be read (a timeout, a
// forbidden list, CRDs unread) the layer is unknown with that read's code,
// and the plan proposes no repair for it; when they were read and the
// layer runs, it stays degraded. Every catalog layer with such a rule is
// tried, each with the failures of a list a preview makes.
func TestNoObjectRestsOnPresence(t *testing.T) {
	for _, layer := range []string{"kube-prometheus-stack", "rook-ceph", "longhorn"} {
		def, ok := CatalogLayer(layer)
		if !ok {
			t.Fatalf("no catalog layer %s", layer)
		}
		status := factsFor(def, nil) // every status list read, and empty
		for _, fail := range []Why{
			Because(ReasonTimedOut, "timed out after 3s"),
			Because(ReasonForbidden, "forbidden (user ro cannot list deployments.apps)"),
			Because(ReasonServerError, "internalerror: etcd leader changed"),
		} {
			facts := ClusterFacts{
				Namespaces:     KnownFact(def.Namespaces),
				CRDGroups:      KnownFact(def.CRDGroups),
				StorageClasses: KnownFact([]StorageClass{}),
				Workloads:      UnknownFact[[]WorkloadState](fail),
			}
			j := EvaluateWithStatus(def, facts, status, true)
			if j.State.Health == Degraded || j.State.Health == Healthy {
				t.Errorf("%s, workloads %s: %s (%s); want unknown: whether it runs was not read", layer, fail.Code, j.State.Health, j.State.Reason)
				continue
			}
			if j.State.Health == Unknown && j.State.Code == "" {
				t.Errorf("%s, workloads %s: unknown without a code", layer, fail.Code)
			}
			tp := &Topology{Name: "s", TargetKind: TargetProd, Layers: []LayerRef{{Name: layer}}}
			obs := &Observed{ServerVersion: KnownFact("v1.37.2"), Nodes: KnownFact([]NodeState{}), Layers: []LayerState{j.State},
				Storage: KnownFact(StorageState{})}
			p := checkedPlan(t, tp, obs, NodeCluster{}, PlanOptions{})
			for _, s := range p.Steps {
				if s.Subject.Key == LayerKey(layer) {
					t.Errorf("%s, workloads %s: step %s %s rests on a read that failed", layer, fail.Code, s.Kind, s.Reason)
				}
			}
			found := false
			for _, u := range p.Unknowns {
				found = found || (u.Subject.Key == LayerKey(layer) && u.Reason == fail.Code)
			}
			if !found {
				t.Errorf("%s, workloads %s: unknowns %v, want the layer unknown with code %s", layer, fail.Code, Texts(p.Unknowns), fail.Code)
			}
		}
	}
}

// TestNoObjectWhenRunning: the same layers, their workloads read and
// available, and no object: degraded, as their rules say.
func TestNoObjectWhenRunning(t *testing.T) {
	def, _ := CatalogLayer("rook-ceph")
	j := EvaluateWithStatus(def, rookFacts(rookUp), factsFor(def, nil), true)
	if j.State.Health != Degraded || !strings.Contains(j.State.Reason, "no CephCluster") {
		t.Errorf("rook-ceph runs with no CephCluster: %s %q, want degraded", j.State.Health, j.State.Reason)
	}
}

// TestAbsentLayerHasNoStatusVerdict: a catalog layer of which nothing was
// found is absent, and its status resources' verdict ("no Prometheus
// resource") is none: the JSON document never says absent beside degraded.
func TestAbsentLayerHasNoStatusVerdict(t *testing.T) {
	def, _ := CatalogLayer("kube-prometheus-stack")
	facts := ClusterFacts{
		Namespaces: KnownFact([]string{"default"}), CRDGroups: KnownFact([]string{}), StorageClasses: KnownFact([]StorageClass{}),
		Workloads: KnownFact([]WorkloadState{}), WorkloadNamespaces: []string{"default", "monitoring"},
	}
	j := EvaluateWithStatus(def, facts, factsFor(def, nil), true)
	if j.State.Health != Absent {
		t.Fatalf("state %s (%s), want absent", j.State.Health, j.State.Reason)
	}
	if j.Status.Health != "" || j.Status.Words != "" {
		t.Errorf("an absent layer's status verdict %s %q: want none", j.Status.Health, j.Status.Words)
	}
}

// TestForbiddenSaidOnce: an identity without the status grants gets one
// phrase naming every list it may not read and what grants them, not each
// refusal in brackets; each list's own refusal stays in its report (what
// --detailed shows).
func TestForbiddenSaidOnce(t *testing.T) {
	def, _ := CatalogLayer("rook-ceph")
	f := StatusFacts{ReadAt: statusNow, Lists: map[string]Fact[[]StatusObject]{}}
	for _, res := range def.Status {
		f.Lists[res.Key()] = UnknownFact[[]StatusObject](Because(ReasonForbidden,
			"forbidden (user ro cannot list "+strings.ToLower(res.Kind)+"s.ceph.rook.io)"))
	}
	v := JudgeStatus(def, f)
	want := "CephClusters, CephBlockPools and CephFilesystems: forbidden — the role `nestor rbac` prints grants them"
	if v.Health != Unknown || v.Code != ReasonForbidden || v.Words != want {
		t.Errorf("%s %s %q, want unknown, forbidden, %q", v.Health, v.Code, v.Words, want)
	}
	for _, r := range v.Resources {
		if r.Known || !strings.Contains(r.Reason, "user ro cannot list") {
			t.Errorf("resource %s: %+v, want its own refusal kept", r.Kind, r)
		}
	}
	// Another cause is grouped by its words.
	for _, res := range def.Status {
		f.Lists[res.Key()] = UnknownFact[[]StatusObject](Because(ReasonTimedOut, "timed out after 3s"))
	}
	if v := JudgeStatus(def, f); v.Words != "CephClusters, CephBlockPools and CephFilesystems: timed out after 3s" {
		t.Errorf("timed out: %q", v.Words)
	}
}
