package health

import (
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/topology"
)

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

func TestDecodeStatusObjectCephCluster(t *testing.T) {
	res := fixtures.StatusResource(t, "rook-ceph", "CephCluster")
	o, err := topology.DecodeStatusObject(res, fixtures.JSONObject(t, cephClusterJSON), topology.StatusCleaner{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Kind != "CephCluster" || o.Namespace != "rook-ceph" || o.Name != "rook-ceph" || o.Generation != 4 || !o.HasStatus || !o.HasObserved || o.ObservedGeneration != 4 {
		t.Errorf("identity: %+v", o)
	}
	if !o.Created.Equal(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("created %v", o.Created)
	}
	for path, want := range map[string]string{topology.FieldCephHealth: "HEALTH_ERR", topology.FieldCephLastChecked: "2026-12-01T11:59:20Z", topology.FieldPhase: "Ready", topology.FieldState: "Created", topology.FieldCephCheckInterval: "45s"} {
		if o.Fields[path] != want {
			t.Errorf("%s = %q, want %q", path, o.Fields[path], want)
		}
	}
	if len(o.Checks) != 2 || o.Checks[0].Name != "OSD_DOWN" || o.Checks[1].Severity != "HEALTH_ERR" {
		t.Errorf("checks (sorted by name) %+v", o.Checks)
	}
	if len(o.Conditions) != 1 || o.Conditions[0].Reason != "ClusterCreated" || o.Conditions[0].LastTransition.IsZero() {
		t.Errorf("conditions %+v", o.Conditions)
	}
	if o.Raw != nil {
		t.Errorf("a catalog object keeps its raw form")
	}
	// Judged at 12:00:00, checked 40 s before.
	def, _ := topology.CatalogLayer("rook-ceph")
	v := JudgeStatus(def, topology.StatusFacts{ReadAt: statusNow, Lists: map[string]topology.Fact[[]topology.StatusObject]{
		"cephclusters.ceph.rook.io":    topology.KnownFact([]topology.StatusObject{o}),
		"cephblockpools.ceph.rook.io":  topology.KnownFact([]topology.StatusObject{}),
		"cephfilesystems.ceph.rook.io": topology.KnownFact([]topology.StatusObject{}),
	}})
	if want := "Ceph HEALTH_ERR: Reduced data availability: 64 pgs inactive; 2 osds down, checked 40 s ago"; v.Health != topology.Degraded || v.Words != want {
		t.Errorf("verdict %s %q, want degraded %q", v.Health, v.Words, want)
	}
}

func TestDecodeStatusObjectCustomKeepsRaw(t *testing.T) {
	res := (topology.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "web", Name: "front"}).StatusResource()
	// A Deployment: kstatus' own rule for apps/Deployment needs its spec
	// and status replicas, which only the whole object has.
	obj := fixtures.JSONObject(t, `{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": {"name": "front", "namespace": "web", "generation": 2},
		"spec": {"replicas": 3},
		"status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 1, "availableReplicas": 1,
			"conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}]}}`)
	o, err := topology.DecodeStatusObject(res, obj, topology.StatusCleaner{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Raw == nil {
		t.Fatal("a custom layer's object lost its raw form")
	}
	h, moving, says := kstatusOf(o)
	if h != topology.Degraded || !moving || !strings.Contains(says, "Available: 1/3") {
		t.Errorf("kstatus of a Deployment 1/3 ready: %s %v %q", h, moving, says)
	}
}
