package topology

import (
	"encoding/json"
	"strings"
	"testing"
)

func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func resourceOf(t *testing.T, layer, kind string) StatusResource {
	t.Helper()
	def, _ := CatalogLayer(layer)
	for _, r := range def.Status {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("%s has no status resource %s", layer, kind)
	return StatusResource{}
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
		res  StatusResource
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
			_, err := DecodeStatusObject(tc.res, jsonObject(t, tc.obj), StatusCleaner{})
			if err == nil || err.Error() != tc.err {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}

	// Numbers as encoding/json decodes them (float64), an item without
	// kind, an empty status, and the cleaner applied to every string.
	o, err := DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "ma\u001b[2Jin", "namespace": "db"},
		"spec": {"instances": 3}, "status": {"readyInstances": 2, "phase": "Cluster in healthy state\u0007"}}`),
		StatusCleaner{Name: func(s string) string { return strings.ReplaceAll(s, "\x1b", `\x1b`) }, Text: func(s string) string { return strings.ReplaceAll(s, "\a", "") }})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != `ma\x1b[2Jin` || o.Fields[fieldInstances] != "3" || o.Fields[fieldReadyInstances] != "2" || o.Fields[fieldPhase] != "Cluster in healthy state" {
		t.Errorf("decoded %+v", o)
	}
	for _, st := range []string{`{}`, `{"observedGeneration": -1}`, `{"observedGeneration": 0}`} {
		empty, err := DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": `+st+`}`), StatusCleaner{})
		if err != nil || empty.HasStatus {
			t.Errorf("status %s: HasStatus %v, err %v; want not reported", st, empty.HasStatus, err)
		}
	}
	seen, _ := DecodeStatusObject(cluster, jsonObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"observedGeneration": 1}}`), StatusCleaner{})
	if !seen.HasStatus {
		t.Errorf("status observedGeneration 1: not reported, want reported")
	}
}

func TestDecodeStatusObjectBounds(t *testing.T) {
	res := resourceOf(t, "cert-manager", "Certificate")
	var conds []string
	for range 100 {
		conds = append(conds, `{"type": "Ready", "status": "False", "message": "`+strings.Repeat("é", 5000)+`"}`)
	}
	o, err := DecodeStatusObject(res, jsonObject(t, `{"metadata": {"name": "c", "namespace": "w"}, "status": {"conditions": [`+strings.Join(conds, ",")+`]}}`), StatusCleaner{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Conditions) != statusMaxConditions {
		t.Errorf("%d conditions kept, want %d", len(o.Conditions), statusMaxConditions)
	}
	if n := len([]rune(o.Conditions[0].Message)); n != statusMaxText || !strings.HasSuffix(o.Conditions[0].Message, "…") {
		t.Errorf("message of %d characters, want %d ending in …", n, statusMaxText)
	}
}
