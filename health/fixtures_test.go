package health

// Fixtures the layer-health tests share with the plan's tests (copies: a
// package's internal tests cannot import another's).

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

func fmtSteps(steps []topology.Step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "  %s [%s] %s: %s", s.Kind, s.Phase, s.Target, s.Reason)
		if s.To != "" {
			fmt.Fprintf(&b, " (to %s)", s.To)
		}
		fmt.Fprintf(&b, " {%s %q key %q}\n", s.Subject.Kind, s.Subject.Text, s.Subject.Key)
	}
	return b.String()
}

func dirqual() *topology.Topology {
	return &topology.Topology{
		Path: "/s/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Nodes: []topology.Node{
			{Name: "dirqual1", Role: topology.RoleControlPlane}, {Name: "dirqual2", Role: topology.RoleWorker},
			{Name: "dirqual3", Role: topology.RoleWorker}, {Name: "dirqual4", Role: topology.RoleWorker},
		},
		Backend: "ceph",
		Layers:  []topology.LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}, {Name: "cnpg"}, {Name: "argocd"}},
	}
}

func setLayer(o *topology.Observed, name string, h topology.Health, reason string) {
	for i := range o.Layers {
		if o.Layers[i].Name == name {
			o.Layers[i].Health, o.Layers[i].Reason = h, reason
		}
	}
}

func healthyDirqual() *topology.Observed {
	t := dirqual()
	return &topology.Observed{
		ServerVersion: topology.KnownFact("v1.36.2"),
		Nodes:         readyNodes("dirqual1", "dirqual2", "dirqual3", "dirqual4"),
		Layers:        healthyLayers(t),
		Storage:       topology.KnownFact(topology.StorageState{Class: "ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
	}
}

func healthyLayers(t *topology.Topology) []topology.LayerState {
	var out []topology.LayerState
	for _, l := range t.Layers {
		out = append(out, topology.LayerState{Name: l.Name, Declared: true, Health: topology.Healthy})
	}
	return out
}

// mkStep is the step of kind in phase acting on target, as NewStep builds
// it (its subject included), moving to to ("" when it is no upgrade).
func mkStep(kind topology.StepKind, phase, target, reason, to string) topology.Step {
	s := topology.NewStep(kind, phase, target, reason)
	s.To = to
	return s
}

// checkedPlan is BuildPlan, and fails t when the plan is not a valid order
// (CheckOrder): every plan the topology tests build is checked.
func checkedPlan(t testing.TB, tp *topology.Topology, obs *topology.Observed, rules plan.Rules, o plan.Options) topology.Plan {
	t.Helper()
	p := plan.Build(tp, obs, rules, o)
	vs := topology.UnknownFact[topology.VersionsState](topology.Because(topology.ReasonNotRead, "no observation"))
	if obs != nil {
		vs = topology.DeriveVersions(obs.ServerVersion, obs.Nodes)
	}
	if err := plan.CheckOrder(p, vs); err != nil {
		t.Errorf("the plan is not a valid order:\n%v\n%s", err, fmtSteps(p.Steps))
	}
	return p
}

func resourceOf(t *testing.T, layer, kind string) topology.StatusResource {
	t.Helper()
	def, _ := topology.CatalogLayer(layer)
	for _, r := range def.Status {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("%s has no status resource %s", layer, kind)
	return topology.StatusResource{}
}

func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A CephCluster as Rook v1.18 writes it (status.ceph from
// cephstatus.go toCustomResourceStatus).
const cephClusterJSON = `{
  "apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
  "metadata": {"name": "rook-ceph", "namespace": "rook-ceph", "generation": 4, "creationTimestamp": "2026-11-01T10:00:00Z"},
  "spec": {"healthCheck": {"daemonHealth": {"status": {"interval": "45s"}}}},
  "status": {
    "phase": "Ready", "state": "Created", "message": "Cluster created successfully",
    "observedGeneration": 4,
    "ceph": {
      "health": "HEALTH_ERR", "lastChecked": "2026-12-01T11:59:20Z", "previousHealth": "HEALTH_OK",
      "details": {
        "PG_AVAILABILITY": {"severity": "HEALTH_ERR", "message": "Reduced data availability: 64 pgs inactive"},
        "OSD_DOWN": {"severity": "HEALTH_WARN", "message": "2 osds down"}
      }
    },
    "conditions": [
      {"type": "Ready", "status": "True", "reason": "ClusterCreated", "message": "Cluster created successfully", "lastTransitionTime": "2026-11-01T10:05:00Z"}
    ]
  }
}`

func TestDecodeStatusObjectShapes(t *testing.T) {
	cluster := resourceOf(t, "cnpg", "Cluster")
	issuer := resourceOf(t, "cert-manager", "ClusterIssuer")
	for _, tc := range []struct {
		name string
		res  topology.StatusResource
		obj  string
		err  string
	}{
		{"another kind", cluster, `{"kind": "Pod", "metadata": {"name": "x", "namespace": "db"}}`, `asked for Cluster, got an object of kind "Pod"`},
		{"no metadata", cluster, `{"kind": "Cluster"}`, "a Cluster without metadata"},
		{"no name", cluster, `{"metadata": {"namespace": "db"}}`, "a Cluster without metadata.name"},
		{"namespaced without namespace", cluster, `{"metadata": {"name": "main"}}`, "Cluster main has no namespace, but Cluster is namespaced"},
		{"cluster-scoped with a namespace", issuer, `{"metadata": {"name": "le", "namespace": "x"}}`, "ClusterIssuer le has namespace x, but ClusterIssuer is cluster-scoped"},
		{"status not an object", cluster, `{"metadata": {"name": "main", "namespace": "db"}, "status": "ok"}`, "Cluster db/main: status is not an object"},
		{"conditions not a list", cluster, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"conditions": {"type": "Ready"}}}`, "Cluster db/main: status.conditions is not a list"},
		{"a condition not an object", cluster, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"conditions": ["Ready"]}}`, "Cluster db/main: a condition is not an object"},
		{"observedGeneration not a number", cluster, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"observedGeneration": "2"}}`, "Cluster db/main: status.observedGeneration is not a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := topology.DecodeStatusObject(tc.res, jsonObject(t, tc.obj), topology.StatusCleaner{})
			if err == nil || err.Error() != tc.err {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}

	// Numbers as encoding/json decodes them (float64), an item without
	// kind, an empty status, and the cleaner applied to every string.
	o, err := topology.DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "ma\u001b[2Jin", "namespace": "db"},
		"spec": {"instances": 3}, "status": {"readyInstances": 2, "phase": "Cluster in healthy state\u0007"}}`),
		topology.StatusCleaner{Name: func(s string) string { return strings.ReplaceAll(s, "\x1b", `\x1b`) }, Text: func(s string) string { return strings.ReplaceAll(s, "\a", "") }})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != `ma\x1b[2Jin` || o.Fields[topology.FieldInstances] != "3" || o.Fields[topology.FieldReadyInstances] != "2" || o.Fields[topology.FieldPhase] != "Cluster in healthy state" {
		t.Errorf("decoded %+v", o)
	}
	for _, st := range []string{`{}`, `{"observedGeneration": -1}`, `{"observedGeneration": 0}`} {
		empty, err := topology.DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": `+st+`}`), topology.StatusCleaner{})
		if err != nil || empty.HasStatus {
			t.Errorf("status %s: HasStatus %v, err %v; want not reported", st, empty.HasStatus, err)
		}
	}
	seen, _ := topology.DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"observedGeneration": 1}}`), topology.StatusCleaner{})
	if !seen.HasStatus {
		t.Errorf("status observedGeneration 1: not reported, want reported")
	}
}

func readyNodes(names ...string) topology.Fact[[]topology.NodeState] {
	var ns []topology.NodeState
	for _, n := range names {
		st := topology.NodeState{Name: n, Ready: true, KubeletVersion: "v1.36.2"}
		if strings.HasSuffix(n, "1") { // dirqual1 and lima-node1 are the control planes
			st.Roles = []string{topology.RoleControlPlane}
		}
		ns = append(ns, st)
	}
	return topology.KnownFact(ns)
}
