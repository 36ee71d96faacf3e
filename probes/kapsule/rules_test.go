package kapsule

import (
	"fmt"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
	"reflect"
	"strings"
	"testing"
	"time"
)

func kapsuleTopo(version string, auto *bool, pools ...topology.Pool) *topology.Topology {
	if len(pools) == 0 {
		pools = []topology.Pool{
			{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"},
			{Name: "burst", NodeType: "PRO2-S", Autoscaling: &topology.Autoscaling{Min: 0, Max: 5}},
		}
	}
	return &topology.Topology{Name: "lyneko-apps", TargetKind: topology.TargetKapsule, Kubernetes: topology.Kubernetes{Version: version, AutoUpgrade: auto},
		Scaleway: &topology.Scaleway{Region: "fr-par", ClusterID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90"}, Pools: pools}
}

// healthy is a ready cluster at 1.35.3 whose pools match kapsuleTopo.
func healthy() *topology.KapsuleObserved {
	return &topology.KapsuleObserved{
		Cluster: topology.KnownFact(topology.KapsuleCluster{ID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90", Name: "lyneko-apps", Status: "ready", Version: "1.35.3", CNI: "cilium", AutoUpgrade: false, UpgradeAvailable: false}),
		Pools: topology.KnownFact([]topology.KapsulePool{
			{ID: "p1", Name: "default", Status: "ready", Version: "1.35.3", NodeType: "pro2_xxs", Zone: "fr-par-1", Size: 3},
			{ID: "p2", Name: "burst", Status: "ready", Version: "1.35.3", NodeType: "pro2_s", Zone: "fr-par-2", Size: 1, Autoscaling: true, MinSize: 0, MaxSize: 5, Autohealing: true},
		}),
		Nodes: topology.KnownFact([]topology.KapsuleNode{
			{Name: "n1", PoolID: "p1", Status: "ready"}, {Name: "n2", PoolID: "p1", Status: "ready"}, {Name: "n3", PoolID: "p1", Status: "ready"},
			{Name: "b1", PoolID: "p2", Status: "ready"},
		}),
		Available: topology.KnownFact([]string{}),
		Versions:  topology.KnownFact([]topology.KapsuleVersion{}),
		ACL:       topology.KnownFact([]string{"0.0.0.0/0"}),
	}
}

func boolp(b bool) *bool { return &b }

func steps(j KapsuleJudgement) string {
	var out []string
	for _, s := range j.Steps {
		out = append(out, fmt.Sprintf("%s %s: %s", s.Kind, s.Target, s.Reason))
	}
	return strings.Join(out, "\n")
}

func findings(fs []topology.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Subject.Text+": "+f.Message)
	}
	return strings.Join(out, "\n")
}

// checkSubject checks a kapsule claim's subject: words, a key, and a
// node's or a pool's key its pool's ("pools" for a node in no listed pool).
func checkSubject(t *testing.T, s topology.Subject) {
	t.Helper()
	if s.Kind == "" || s.Key == "" || s.Text == "" {
		t.Errorf("subject %+v: kind, key or words missing", s)
	}
	switch {
	case s.Kind == topology.SubjectNode && s.Pool != "" && s.Key != topology.PoolKey(s.Pool),
		s.Kind == topology.SubjectNode && s.Pool == "" && s.Key != topology.KeyPools,
		s.Kind == topology.SubjectPool && s.Key != topology.PoolKey(s.Name):
		t.Errorf("subject %+v: not at its pool's key", s)
	}
}

func TestJudgeKapsule(t *testing.T) {
	tests := []struct {
		name     string
		topo     *topology.Topology
		edit     func(k *topology.KapsuleObserved)
		steps    string // the steps, one per line; "" for none
		waiting  []string
		unknowns []string
		// codes are the unknowns' ReasonCodes, keys the topology keys of
		// the waiting objects then of the unknowns, in order (unchecked
		// when nil).
		codes    []topology.ReasonCode
		keys     []string
		findings []string // substrings of findings(), in order
	}{
		{name: "healthy is in sync", topo: kapsuleTopo("1.35", nil)},
		{name: "pool behind the cluster", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) { k.Pools.Value[1].Version = "1.34.6" },
			steps: "upgrade-pool burst: 1.34.6 → 1.35.3 (the cluster's version)"},
		{name: "pool ahead is unknown", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) { k.Pools.Value[1].Version = "1.36.0" },
			unknowns: []string{"pool burst: version 1.36.0 is ahead of the cluster's 1.35.3, which the provider never allows"}},
		{name: "cluster updating: waiting, no step, pools' versions not compared", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status, k.Cluster.Value.Version = "updating", "1.36.2"
		}, waiting: []string{"cluster lyneko-apps: updating to 1.36.2 (pools at 1.35.3)"}},
		{name: "409 on the cluster", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster = topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonFailed, "transient_state"))
			k.Transient = map[string]string{"cluster": "updating"}
		}, waiting: []string{"cluster: the provider's API answered transient_state (current state updating)"}},
		{name: "pool upgrading with surge nodes: waiting, no size drift, no degraded node", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Pools.Value[0].Status, k.Pools.Value[0].Version = "upgrading", "1.35.3"
			k.Nodes.Value = append(k.Nodes.Value, topology.KapsuleNode{Name: "n4", PoolID: "p1", Status: "creating"}, topology.KapsuleNode{Name: "n1-old", PoolID: "p1", Status: "not_ready"})
		}, waiting: []string{"pool default: upgrading to 1.35.3"}},
		{name: "a node deleting after an upgrade is waiting, not degraded, and no size drift", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Nodes.Value = append(k.Nodes.Value, topology.KapsuleNode{Name: "n0", PoolID: "p1", Status: "deleting"})
		}, waiting: []string{"node n0 (pool default): deleting"}, keys: []string{"pools/default"}},
		{name: "pool scaling", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) { k.Pools.Value[1].Status = "scaling" },
			waiting: []string{"pool burst: scaling"}},
		{name: "409 on pools", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Pools = topology.UnknownFact[[]topology.KapsulePool](topology.Because(topology.ReasonFailed, "transient_state"))
			k.Transient = map[string]string{"pools": "scaling"}
		}, waiting: []string{"pools: the provider's API answered transient_state (current state scaling)"}},
		{name: "501 on nodes is unknown with the reason", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Nodes = topology.UnknownFact[[]topology.KapsuleNode](topology.Because(topology.ReasonFailed, "the provider's API answered 501 Not Implemented"))
		}, unknowns: []string{"nodes: the provider's API answered 501 Not Implemented"}, codes: []topology.ReasonCode{topology.ReasonFailed}, keys: []string{"pools"}},
		{name: "pool_required creates each declared pool", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "pool_required"
			k.Pools.Value, k.Nodes.Value = []topology.KapsulePool{}, []topology.KapsuleNode{}
		}, steps: "create-pool default: declared, the cluster has no pool of that name\ncreate-pool burst: declared, the cluster has no pool of that name"},
		{name: "the next minor offered is said, with no step, when none is declared", topo: kapsuleTopo("", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.35.4", "1.36.1", "1.36.0"})
			k.Cluster.Value.UpgradeAvailable = true
		}, findings: []string{"info cluster: patch 1.35.4 is available (auto-upgrade is off)", "info cluster: the next minor is offered to this cluster: 1.36.1 (declare kubernetes.version 1.36 to plan the upgrade)"}},
		{name: "the next minor offered is said when the declared minor runs", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.36.1"})
			k.Cluster.Value.UpgradeAvailable = true
		}, findings: []string{"info cluster: the next minor is offered to this cluster: 1.36.1"}},
		{name: "cluster updating settings, version unchanged: updating, never to its own version", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "updating"
		}, waiting: []string{"cluster lyneko-apps: updating"}},
		{name: "an undeclared pool deleting, and its nodes, are waiting", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"}), edit: func(k *topology.KapsuleObserved) {
			k.Pools.Value[1].Status = "deleting"
			k.Nodes.Value[3].Status = "deleting"
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology", waiting: []string{"pool burst: deleting"}},
		{name: "a ready undeclared pool with a node deleting is waiting", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"}), edit: func(k *topology.KapsuleObserved) {
			k.Nodes.Value[3].Status = "deleting"
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology", waiting: []string{"node b1 (pool burst): deleting"}},
		{name: "an undeclared pool's node not ready is a finding, never a step", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"}), edit: func(k *topology.KapsuleObserved) {
			k.Pools.Value[1].Autohealing = false
			k.Nodes.Value[3].Status, k.Nodes.Value[3].ErrorMessage = "not_ready", "kubelet down"
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology", findings: []string{"warning node b1 (pool burst): degraded (not_ready: kubelet down), autohealing off"}},
		{name: "a moving node of a pool the list does not hold is waiting", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Nodes.Value = append(k.Nodes.Value, topology.KapsuleNode{Name: "gone-1", PoolID: "p-gone", Status: "deleting"})
		}, waiting: []string{"node gone-1 (pool p-gone, not listed): deleting"}, keys: []string{"pools"}},
		{name: "cluster creating with its declared pools absent: waiting, no create-pool", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "creating"
			k.Pools.Value, k.Nodes.Value = []topology.KapsulePool{}, []topology.KapsuleNode{}
		}, waiting: []string{"cluster lyneko-apps: creating"}},
		{name: "cluster updating with a pool absent and one drifting: no pool step", topo: kapsuleTopo("1.35", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 5, Zone: "fr-par-1"}, topology.Pool{Name: "new", NodeType: "PRO2-S", Size: 1}), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "updating"
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology", waiting: []string{"cluster lyneko-apps: updating"}},
		{name: "cluster deleting: everything waits, nothing planned", topo: kapsuleTopo("1.36", nil, topology.Pool{Name: "new", NodeType: "PRO2-S", Size: 1}), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "deleting"
			k.Pools.Value[0].Status = "deleting"
		}, waiting: []string{"cluster lyneko-apps: deleting"}},
		{name: "a 409 on the cluster: no pool step either", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "new", NodeType: "PRO2-S", Size: 1}), edit: func(k *topology.KapsuleObserved) {
			k.Cluster = topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonFailed, "transient_state"))
			k.Transient = map[string]string{"cluster": "creating"}
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology\nundeclared default: a pool of the cluster not declared in the topology",
			waiting: []string{"cluster: the provider's API answered transient_state (current state creating)"}},
		{name: "locked cluster: no create-pool", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "new", NodeType: "PRO2-S", Size: 1}), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "locked"
		}, steps: "undeclared burst: a pool of the cluster not declared in the topology\nundeclared default: a pool of the cluster not declared in the topology",
			findings: []string{"error cluster: locked by the provider"}},
		{name: "undeclared pool", topo: kapsuleTopo("1.35", nil, topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3}), edit: func(k *topology.KapsuleObserved) {},
			steps: "undeclared burst: a pool of the cluster not declared in the topology"},
		{name: "size, autoscaling, min, max", topo: kapsuleTopo("1.35", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 4},
			topology.Pool{Name: "burst", NodeType: "PRO2-S", Autoscaling: &topology.Autoscaling{Min: 1, Max: 6}}),
			steps: "update-pool default: size 3 → 4\nupdate-pool burst: min_size 0 → 1, max_size 5 → 6"},
		{name: "autoscaling switched", topo: kapsuleTopo("1.35", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-XXS", Autoscaling: &topology.Autoscaling{Min: 1, Max: 3}},
			topology.Pool{Name: "burst", NodeType: "PRO2-S", Size: 2}),
			steps: "update-pool default: autoscaling off → on (min 1, max 3)\nupdate-pool burst: autoscaling on → off, size 2"},
		{name: "node type and zone replace the pool", topo: kapsuleTopo("1.35", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-M", Size: 3, Zone: "fr-par-2"},
			topology.Pool{Name: "burst", NodeType: "PRO2-S", Autoscaling: &topology.Autoscaling{Min: 0, Max: 5}}),
			steps: "replace-pool default: node_type pro2_xxs → PRO2-M, zone fr-par-1 → fr-par-2 (cannot change in place: a new pool, then the old one removed)"},
		{name: "declared pool absent", topo: kapsuleTopo("1.35", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3}, topology.Pool{Name: "burst", NodeType: "PRO2-S", Autoscaling: &topology.Autoscaling{Min: 0, Max: 5}},
			topology.Pool{Name: "gpu", NodeType: "L4-1-24G", Size: 1}),
			steps: "create-pool gpu: declared, the cluster has no pool of that name"},
		{name: "minor above: one minor at a time, only what is offered", topo: kapsuleTopo("1.37", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.35.8", "1.36.1", "1.36.4"})
			k.Cluster.Value.UpgradeAvailable = true
		}, steps: "upgrade cluster: 1.35.3 → 1.36.4 (offered by the provider; one minor at a time)\n" +
			"upgrade-pool default: 1.35.3 → 1.36.4 (the cluster's version after upgrade cluster → 1.36.4)\n" +
			"upgrade-pool burst: 1.35.3 → 1.36.4 (the cluster's version after upgrade cluster → 1.36.4)",
			findings: []string{"info cluster: desired 1.37: the provider offers the next minor only once the cluster runs 1.36"}},
		{name: "declared next patch offered", topo: kapsuleTopo("1.36.1", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.35.8", "1.36.1", "1.36.4"})
			k.Cluster.Value.UpgradeAvailable = true
		}, steps: "upgrade cluster: 1.35.3 → 1.36.1 (offered by the provider; one minor at a time)\n" +
			"upgrade-pool default: 1.35.3 → 1.36.1 (the cluster's version after upgrade cluster → 1.36.1)\n" +
			"upgrade-pool burst: 1.35.3 → 1.36.1 (the cluster's version after upgrade cluster → 1.36.1)"},
		{name: "a declared pool the next minor would leave beyond the skew policy: it moves first, the cluster's upgrade waits", topo: kapsuleTopo("1.36", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.36.1"})
			k.Cluster.Value.UpgradeAvailable = true
			k.Pools.Value[1].Version = "1.32.9"
		}, steps: "upgrade-pool burst: 1.32.9 → 1.35.3 (the cluster's version)",
			findings: []string{"warning cluster: upgrade cluster → 1.36.1 is not planned yet: pool burst at 1.32.9 would be 4 minors behind 1.36, more than the 3 the version skew policy allows; the pool is upgraded to the cluster's version first, then preview again"}},
		{name: "an undeclared pool the next minor would leave beyond the skew policy: the upgrade is blocked, no step for the pool", topo: kapsuleTopo("1.36", nil,
			topology.Pool{Name: "default", NodeType: "PRO2-XXS", Size: 3}), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.36.1"})
			k.Cluster.Value.UpgradeAvailable = true
			k.Pools.Value[1].Version = "1.32.9"
		}, steps: "upgrade cluster: 1.35.3 → 1.36.1 (offered by the provider; one minor at a time); blocked: pool burst at 1.32.9 would be 4 minors behind 1.36, more than the 3 the version skew policy allows, and it is not declared in the topology, so no step of this plan upgrades it: upgrade it to the cluster's version outside nestor (scw k8s pool upgrade), or declare it under pools:, first\n" +
			"upgrade-pool default: 1.35.3 → 1.36.1 (the cluster's version after upgrade cluster → 1.36.1)\n" +
			"undeclared burst: a pool of the cluster not declared in the topology"},
		{name: "next minor not offered: unknown, no guessed step", topo: kapsuleTopo("1.36", nil), edit: func(k *topology.KapsuleObserved) {
			k.Available = topology.KnownFact([]string{"1.35.8"})
			k.Cluster.Value.UpgradeAvailable = true
		}, unknowns: []string{"kubernetes version: desired 1.36, but the provider offers no 1.36 to this cluster (available: 1.35.8)"},
			codes: []topology.ReasonCode{topology.ReasonNotOffered}, keys: []string{"kubernetes.version"}},
		{name: "minor below: no downgrade", topo: kapsuleTopo("1.34", nil), findings: []string{"error cluster: desired kubernetes.version 1.34 is below the cluster's 1.35.3: a cluster is never downgraded"}},
		{name: "auto-upgrade moved the patch: information, not a downgrade", topo: kapsuleTopo("1.35.3", boolp(true)), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Version, k.Cluster.Value.AutoUpgrade = "1.35.8", true
			for i := range k.Pools.Value {
				k.Pools.Value[i].Version = "1.35.8"
			}
		}, findings: []string{"info cluster: the cluster runs 1.35.8 above the declared 1.35.3 (auto-upgrade moved the patch): not a downgrade"}},
		{name: "patch behind with auto-upgrade: information", topo: kapsuleTopo("1.35.8", boolp(true)), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.AutoUpgrade, k.Cluster.Value.UpgradeAvailable = true, true
			k.Available = topology.KnownFact([]string{"1.35.8"})
		}, findings: []string{"info cluster: patch 1.35.3 is behind the declared 1.35.8: auto-upgrade is on"}},
		{name: "patch behind without auto-upgrade: a step", topo: kapsuleTopo("1.35.8", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.UpgradeAvailable = true
			k.Available = topology.KnownFact([]string{"1.35.8"})
		}, steps: "upgrade cluster: 1.35.3 → 1.35.8 (offered by the provider)\n" +
			"upgrade-pool default: 1.35.3 → 1.35.8 (the cluster's version after upgrade cluster → 1.35.8)\n" +
			"upgrade-pool burst: 1.35.3 → 1.35.8 (the cluster's version after upgrade cluster → 1.35.8)"},
		{name: "upgrade_available disagrees with the list", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.UpgradeAvailable = true
		}, findings: []string{"warning cluster: the cluster says upgrade_available=true, its available-versions list offers none"}},
		{name: "auto_upgrade desired", topo: kapsuleTopo("1.35", boolp(true)), steps: "update-cluster auto_upgrade: auto_upgrade false → true"},
		{name: "pool warning and not_ready node without autohealing", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Pools.Value[0].Status, k.Pools.Value[0].ErrorMessage = "warning", "1 node not ready"
			k.Nodes.Value[1].Status, k.Nodes.Value[1].ErrorMessage = "not_ready", "kubelet stopped posting status"
		}, steps: "replace-node n2: degraded, not_ready: kubelet stopped posting status (pool default has autohealing off)",
			findings: []string{"warning pool default: degraded: 1 node not ready"}},
		{name: "creation_error with autohealing: information", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Nodes.Value[3].Status, k.Nodes.Value[3].ErrorMessage = "creation_error", "out of stock"
		}, findings: []string{"info node b1 (pool burst): degraded (creation_error: out of stock): autohealing is on, the provider replaces it"}},
		{name: "locked cluster", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) { k.Cluster.Value.Status = "locked" },
			findings: []string{"error cluster: locked by the provider: contact Scaleway support"}},
		{name: "a status the SDK does not know", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster.Value.Status = "hibernating"
			k.Pools.Value[0].Status = "unknown"
			k.Nodes.Value[3].Status = "teleporting"
		}, unknowns: []string{`cluster lyneko-apps: status "hibernating", which nestor does not know`, `pool default: status "unknown", which nestor does not know`, `node b1 (pool burst): status "teleporting", which nestor does not know`},
			codes: []topology.ReasonCode{topology.ReasonUnrecognised, topology.ReasonUnrecognised, topology.ReasonUnrecognised}, keys: []string{"scaleway", "pools/default", "pools/burst"}},
		{name: "401 on the cluster: unknown, never absent", topo: kapsuleTopo("1.35", nil), edit: func(k *topology.KapsuleObserved) {
			k.Cluster = topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonUnauthorized, "unauthorized: the provider refused the credentials (401)"))
			k.Pools = topology.UnknownFact[[]topology.KapsulePool](topology.Because(topology.ReasonUnauthorized, "unauthorized: the provider refused the credentials (401)"))
		}, unknowns: []string{"cluster: unauthorized: the provider refused the credentials (401)", "pools: unauthorized: the provider refused the credentials (401)"},
			codes: []topology.ReasonCode{topology.ReasonUnauthorized, topology.ReasonUnauthorized}, keys: []string{"scaleway", "pools"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := healthy()
			if tc.edit != nil {
				tc.edit(k)
			}
			j := JudgeKapsule(tc.topo, k)
			if err := plan.CheckOrder(topology.Plan{Steps: j.Steps}, topology.UnknownFact[topology.VersionsState](topology.Because(topology.ReasonNotRead, "a managed cluster"))); err != nil {
				t.Errorf("not a valid order:\n%v", err)
			}
			if got := steps(j); got != tc.steps {
				t.Errorf("steps:\n%s\nwant:\n%s", got, tc.steps)
			}
			if got, want := strings.Join(topology.Texts(j.Waiting), "\n"), strings.Join(tc.waiting, "\n"); got != want {
				t.Errorf("waiting:\n%s\nwant:\n%s", got, want)
			}
			if got, want := strings.Join(topology.Texts(j.Unknowns), "\n"), strings.Join(tc.unknowns, "\n"); got != want {
				t.Errorf("unknowns:\n%s\nwant:\n%s", got, want)
			}
			var codes []topology.ReasonCode
			var keys []string
			for _, w := range j.Waiting {
				keys = append(keys, w.Subject.Key)
				checkSubject(t, w.Subject)
			}
			for _, u := range j.Unknowns {
				codes = append(codes, u.Code)
				keys = append(keys, u.Subject.Key)
				checkSubject(t, u.Subject)
			}
			for _, s := range j.Steps {
				checkSubject(t, s.Subject)
				if s.Kind == topology.StepReplaceNode && (s.Subject.Kind != topology.SubjectNode || s.Subject.Name != s.Target || s.Subject.Pool == "") {
					t.Errorf("replace-node %s: subject %+v, want the node in its pool", s.Target, s.Subject)
				}
			}
			if tc.codes != nil && !reflect.DeepEqual(codes, tc.codes) {
				t.Errorf("unknowns' codes = %q, want %q", codes, tc.codes)
			}
			if tc.keys != nil && !reflect.DeepEqual(keys, tc.keys) {
				t.Errorf("waiting and unknowns' keys = %q, want %q", keys, tc.keys)
			}
			got := findings(j.Findings)
			if len(tc.findings) == 0 && got != "" {
				t.Errorf("findings:\n%s\nwant none", got)
			}
			for _, f := range tc.findings {
				if !strings.Contains(got, f) {
					t.Errorf("findings:\n%s\nwant %q", got, f)
				}
			}
		})
	}
}

// The plan of a kapsule stack: the judgement in place of k8s, waiting
// objects carried, never a VM or node step.
func TestBuildPlanKapsule(t *testing.T) {
	k := healthy()
	k.Pools.Value[1].Version = "1.34.6"
	k.Pools.Value[0].Status = "scaling"
	obs := &topology.Observed{Kapsule: k, ServerVersion: topology.KnownFact("v1.35.3"), Nodes: topology.KnownFact([]topology.NodeState{}), Storage: topology.KnownFact(topology.StorageState{}), Layers: []topology.LayerState{}}
	p := plan.Build(kapsuleTopo("1.35", nil), obs, Rules{}, plan.Options{})
	if len(p.Steps) != 1 || p.Steps[0].Kind != topology.StepUpgradePool || p.Steps[0].Phase != topology.PhasePools {
		t.Errorf("steps = %+v", p.Steps)
	}
	if len(p.Waiting) != 1 || len(p.Unknowns) != 0 || p.Waiting[0].Subject != topology.PoolSubject("default") || p.Waiting[0].Subject.Key != "pools/default" {
		t.Errorf("waiting %+v, unknowns %v", p.Waiting, p.Unknowns)
	}
	n := plan.Next(kapsuleTopo("1.35", nil), obs, p, Rules{})
	if n.Done || n.Phase.Name != topology.PhasePools || !strings.Contains(n.Why, "waiting: pool default is scaling") {
		t.Errorf("next = %+v", n)
	}
}

func date(s string) *time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return &d
}

// The calendar at dates before and after the deprecation and the end of
// life of the minors in use, an inconsistent entry, a minor not listed.
func TestKapsuleCalendar(t *testing.T) {
	k := healthy()
	k.Pools.Value[1].Version = "1.34.6"
	k.Versions = topology.KnownFact([]topology.KapsuleVersion{
		{Name: "1.35.3", ReleasedAt: date("2026-04-01"), DeprecatedAt: date("2027-03-01"), EndOfLifeAt: date("2027-06-01")},
		{Name: "1.34.6", ReleasedAt: date("2025-12-01"), DeprecatedAt: date("2026-09-01"), EndOfLifeAt: date("2026-12-15")},
	})
	cases := []struct {
		asOf string
		want []string
	}{
		{"2026-06-01", nil},
		{"2026-09-01", []string{"warning 1.34 (pool burst): deprecated by the provider since 2026-09-01"}},
		{"2026-11-01", []string{"warning 1.34 (pool burst): deprecated by the provider since 2026-09-01",
			"warning 1.34 (pool burst): end of life in 44 days (2026-12-15): the provider then upgrades the cluster to the next minor's latest patch"}},
		{"2026-12-15", []string{"error 1.34 (pool burst): past its end of life (2026-12-15): the provider upgrades the cluster to the next minor's latest patch"}},
		{"2027-04-10", []string{"warning 1.35 (the cluster, pool default): deprecated by the provider since 2027-03-01",
			"warning 1.35 (the cluster, pool default): end of life in 52 days (2027-06-01): the provider then upgrades the cluster to the next minor's latest patch",
			"error 1.34 (pool burst): past its end of life (2026-12-15): the provider upgrades the cluster to the next minor's latest patch"}},
	}
	for _, c := range cases {
		asOf := *date(c.asOf)
		got := findings(KapsuleCalendar(k, asOf))
		if want := strings.Join(c.want, "\n"); got != want {
			t.Errorf("as of %s:\n%s\nwant:\n%s", c.asOf, got, want)
		}
	}

	k.Versions = topology.KnownFact([]topology.KapsuleVersion{{Name: "1.35.1", DeprecatedAt: date("2027-03-01"), EndOfLifeAt: date("2026-01-01")}})
	got := findings(KapsuleCalendar(k, *date("2026-11-01")))
	want := "info 1.35 (the cluster, pool default): calendar inconsistent: end of life 2026-01-01 is before deprecation 2027-03-01; no countdown\n" +
		"info 1.34 (pool burst): not listed by the provider: no dates to judge"
	if got != want {
		t.Errorf("inconsistent/not listed:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"unsupported", "days"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q in %s", bad, got)
		}
	}
}

// A cluster the provider is deleting holds the whole plan: its layers are
// not judged (no install for an absent one), and the stack is waiting.
func TestBuildPlanClusterDeleting(t *testing.T) {
	k := healthy()
	k.Cluster.Value.Status = "deleting"
	tp := kapsuleTopo("1.35", nil)
	tp.Layers = []topology.LayerRef{{Name: "argocd"}}
	obs := &topology.Observed{Kapsule: k, Layers: []topology.LayerState{{Name: "argocd", Declared: true, Health: topology.Absent, Reason: "not found"}},
		Storage: topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "not read"))}
	p := plan.Build(tp, obs, Rules{}, plan.Options{})
	if len(p.Steps) != 0 || len(p.Unknowns) != 0 || p.Held == "" || p.Outcome() != topology.OutcomeWaiting {
		t.Errorf("plan = %+v, status %s", p, p.Outcome())
	}
}
