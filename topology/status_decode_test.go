package topology_test

import (
	"strings"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/topology"
)

func TestDecodeStatusObjectShapes(t *testing.T) {
	cluster := fixtures.StatusResource(t, "cnpg", "Cluster")
	issuer := fixtures.StatusResource(t, "cert-manager", "ClusterIssuer")
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
			_, err := topology.DecodeStatusObject(tc.res, fixtures.JSONObject(t, tc.obj), topology.StatusCleaner{})
			if err == nil || err.Error() != tc.err {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}

	// Numbers as encoding/json decodes them (float64), an item without
	// kind, an empty status, and the cleaner applied to every string.
	o, err := topology.DecodeStatusObject(cluster, fixtures.JSONObject(t, `{"metadata": {"name": "ma\u001b[2Jin", "namespace": "db"},
		"spec": {"instances": 3}, "status": {"readyInstances": 2, "phase": "Cluster in healthy state\u0007"}}`),
		topology.StatusCleaner{Name: func(s string) string { return strings.ReplaceAll(s, "\x1b", `\x1b`) }, Text: func(s string) string { return strings.ReplaceAll(s, "\a", "") }})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != `ma\x1b[2Jin` || o.Fields[topology.FieldInstances] != "3" || o.Fields[topology.FieldReadyInstances] != "2" || o.Fields[topology.FieldPhase] != "Cluster in healthy state" {
		t.Errorf("decoded %+v", o)
	}
	for _, st := range []string{`{}`, `{"observedGeneration": -1}`, `{"observedGeneration": 0}`} {
		empty, err := topology.DecodeStatusObject(cluster, fixtures.JSONObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": `+st+`}`), topology.StatusCleaner{})
		if err != nil || empty.HasStatus {
			t.Errorf("status %s: HasStatus %v, err %v; want not reported", st, empty.HasStatus, err)
		}
	}
	seen, _ := topology.DecodeStatusObject(cluster, fixtures.JSONObject(t, `{"metadata": {"name": "main", "namespace": "db"}, "status": {"observedGeneration": 1}}`), topology.StatusCleaner{})
	if !seen.HasStatus {
		t.Errorf("status observedGeneration 1: not reported, want reported")
	}
}

func TestDecodeStatusObjectBounds(t *testing.T) {
	res := fixtures.StatusResource(t, "cert-manager", "Certificate")
	var conds []string
	for range 100 {
		conds = append(conds, `{"type": "Ready", "status": "False", "message": "`+strings.Repeat("é", 5000)+`"}`)
	}
	o, err := topology.DecodeStatusObject(res, fixtures.JSONObject(t, `{"metadata": {"name": "c", "namespace": "w"}, "status": {"conditions": [`+strings.Join(conds, ",")+`]}}`), topology.StatusCleaner{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Conditions) != topology.StatusMaxConditions {
		t.Errorf("%d conditions kept, want %d", len(o.Conditions), topology.StatusMaxConditions)
	}
	if n := len([]rune(o.Conditions[0].Message)); n != topology.StatusMaxText || !strings.HasSuffix(o.Conditions[0].Message, "…") {
		t.Errorf("message of %d characters, want %d ending in …", n, topology.StatusMaxText)
	}
}

// The health checks are read at the path the resource declares, for any
// kind; a resource that declares none gets none, whatever the object holds.
func TestDecodeStatusObjectChecksAtDeclaredPath(t *testing.T) {
	res := topology.StatusResource{Group: "example.io", Versions: []string{"v1"}, Resource: "stores", Kind: "Store", Namespaced: true, Checks: "status.health.checks"}
	obj := `{"metadata": {"name": "s", "namespace": "ns"}, "status": {"health": {"checks": {
		"SLOW_OPS": {"severity": "HEALTH_WARN", "message": "3 slow ops"},
		"DISK_FULL": {"severity": "HEALTH_ERR", "message": "disk full"}}}}}`
	o, err := topology.DecodeStatusObject(res, fixtures.JSONObject(t, obj), topology.StatusCleaner{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Checks) != 2 || o.Checks[0].Name != "DISK_FULL" || o.Checks[0].Severity != "HEALTH_ERR" || o.Checks[1].Message != "3 slow ops" {
		t.Errorf("checks %+v, want DISK_FULL then SLOW_OPS", o.Checks)
	}
	res.Checks = ""
	if o, _ := topology.DecodeStatusObject(res, fixtures.JSONObject(t, obj), topology.StatusCleaner{}); len(o.Checks) != 0 {
		t.Errorf("no Checks path declared: checks %+v, want none", o.Checks)
	}
	// A CephCluster's checks come from the catalog's path, not its kind.
	if ceph := fixtures.StatusResource(t, "rook-ceph", "CephCluster"); ceph.Checks != "status.ceph.details" {
		t.Errorf("CephCluster's checks path %q, want status.ceph.details", ceph.Checks)
	}
}
