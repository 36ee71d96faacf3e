package health

import (
	"strings"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
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
		def, ok := topology.CatalogLayer(layer)
		if !ok {
			t.Fatalf("no catalog layer %s", layer)
		}
		status := factsFor(def, nil) // every status list read, and empty
		for _, fail := range []topology.Why{
			topology.Because(topology.ReasonTimedOut, "timed out after 3s"),
			topology.Because(topology.ReasonForbidden, "forbidden (user ro cannot list deployments.apps)"),
			topology.Because(topology.ReasonServerError, "internalerror: etcd leader changed"),
		} {
			facts := topology.ClusterFacts{
				Namespaces:     topology.KnownFact(def.Namespaces),
				CRDGroups:      topology.KnownFact(def.CRDGroups),
				StorageClasses: topology.KnownFact([]topology.StorageClass{}),
				Workloads:      topology.UnknownFact[[]topology.WorkloadState](fail),
			}
			j := JudgeLayer(def, facts, status, true)
			if j.State.Health == topology.Degraded || j.State.Health == topology.Healthy {
				t.Errorf("%s, workloads %s: %s (%s); want unknown: whether it runs was not read", layer, fail.Code, j.State.Health, j.State.Reason)
				continue
			}
			if j.State.Health == topology.Unknown && j.State.Code == "" {
				t.Errorf("%s, workloads %s: unknown without a code", layer, fail.Code)
			}
			tp := &topology.Topology{Name: "s", TargetKind: topology.TargetProd, Layers: []topology.LayerRef{{Name: layer}}}
			obs := &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Nodes: topology.KnownFact([]topology.NodeState{}), Layers: []topology.LayerState{j.State},
				Storage: topology.KnownFact(topology.StorageState{})}
			p := fixtures.CheckedPlan(t, tp, obs, plan.NodeCluster{}, plan.Options{})
			for _, s := range p.Steps {
				if s.Subject.Key == topology.LayerKey(layer) {
					t.Errorf("%s, workloads %s: step %s %s rests on a read that failed", layer, fail.Code, s.Kind, s.Reason)
				}
			}
			found := false
			for _, u := range p.Unknowns {
				found = found || (u.Subject.Key == topology.LayerKey(layer) && u.Code == fail.Code)
			}
			if !found {
				t.Errorf("%s, workloads %s: unknowns %v, want the layer unknown with code %s", layer, fail.Code, topology.Texts(p.Unknowns), fail.Code)
			}
		}
	}
}

// TestNoObjectWhenRunning: the same layers, their workloads read and
// available, and no object: degraded, as their rules say.
func TestNoObjectWhenRunning(t *testing.T) {
	def, _ := topology.CatalogLayer("rook-ceph")
	j := JudgeLayer(def, rookFacts(rookUp), factsFor(def, nil), true)
	if j.State.Health != topology.Degraded || !strings.Contains(j.State.Reason, "no CephCluster") {
		t.Errorf("rook-ceph runs with no CephCluster: %s %q, want degraded", j.State.Health, j.State.Reason)
	}
}

// TestAbsentLayerHasNoStatusVerdict: a catalog layer of which nothing was
// found is absent, and its status resources' verdict ("no Prometheus
// resource") is none: the JSON document never says absent beside degraded.
func TestAbsentLayerHasNoStatusVerdict(t *testing.T) {
	def, _ := topology.CatalogLayer("kube-prometheus-stack")
	facts := topology.ClusterFacts{
		Namespaces: topology.KnownFact([]string{"default"}), CRDGroups: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{}),
		Workloads: topology.KnownFact([]topology.WorkloadState{}), WorkloadNamespaces: []string{"default", "monitoring"},
	}
	j := JudgeLayer(def, facts, factsFor(def, nil), true)
	if j.State.Health != topology.Absent {
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
	def, _ := topology.CatalogLayer("rook-ceph")
	f := topology.StatusFacts{ReadAt: statusNow, Lists: map[string]topology.Fact[[]topology.StatusObject]{}}
	for _, res := range def.Status {
		f.Lists[res.Key()] = topology.UnknownFact[[]topology.StatusObject](topology.Because(topology.ReasonForbidden,
			"forbidden (user ro cannot list "+strings.ToLower(res.Kind)+"s.ceph.rook.io)"))
	}
	v := JudgeStatus(def, f)
	want := "CephClusters, CephBlockPools and CephFilesystems: forbidden — the role `nestor rbac` prints grants them"
	if v.Health != topology.Unknown || v.Code != topology.ReasonForbidden || v.Words != want {
		t.Errorf("%s %s %q, want unknown, forbidden, %q", v.Health, v.Code, v.Words, want)
	}
	for _, r := range v.Resources {
		if r.Known || !strings.Contains(r.Reason, "user ro cannot list") {
			t.Errorf("resource %s: %+v, want its own refusal kept", r.Kind, r)
		}
	}
	// Another cause is grouped by its words.
	for _, res := range def.Status {
		f.Lists[res.Key()] = topology.UnknownFact[[]topology.StatusObject](topology.Because(topology.ReasonTimedOut, "timed out after 3s"))
	}
	if v := JudgeStatus(def, f); v.Words != "CephClusters, CephBlockPools and CephFilesystems: timed out after 3s" {
		t.Errorf("timed out: %q", v.Words)
	}
}
