package bench

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// statusObject is one custom resource of the fixture and the status its
// operator writes, applied through the status subresource.
type statusObject struct {
	obj    *unstructured.Unstructured
	status map[string]any
	gvr    schema.GroupVersionResource
}

// condition is a metav1.Condition as operators write them.
func condition(typ, status, reason string, since time.Time) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": reason, "observedGeneration": int64(1),
		"lastTransitionTime": since.UTC().Format(time.RFC3339)}
}

// genStatusObjects are the layers' own status resources as their operators
// write them when all is well (the same shapes as
// tests/testdata/clusters/operators-healthy.yaml, read by topology's status
// rules): a CephCluster with HEALTH_OK checked a minute before now, a
// CephBlockPool and a CephFilesystem Ready, a Longhorn Node Ready and
// Schedulable per storage node (one per 50 nodes, at least 3), Prometheus
// and Alertmanager Available, a ClusterIssuer and a ClusterSecretStore
// Ready, a CloudNativePG Cluster in healthy state, and, to weigh the lists
// as a busy cluster would, nodes/10 Certificates Ready and nodes/20 Argo CD
// Applications Healthy and Synced, spread over the tenant namespaces.
func genStatusObjects(nodes int, tenants []string, now time.Time) []statusObject {
	ago := func(d time.Duration) string { return now.Add(-d).UTC().Format(time.RFC3339) }
	month := now.Add(-720 * time.Hour)
	var out []statusObject
	add := func(group, version, kind, ns, name string, spec, status map[string]any) {
		c := crdDef{group: group, version: version, kind: kind}
		meta := map[string]any{"name": name}
		if ns != "" {
			meta["namespace"] = ns
		}
		out = append(out, statusObject{
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/" + version, "kind": kind, "metadata": meta, "spec": spec}},
			status: status,
			gvr:    schema.GroupVersionResource{Group: group, Version: version, Resource: c.plural()},
		})
	}
	ready := func(reason string) map[string]any {
		return map[string]any{"conditions": []any{condition("Ready", "True", reason, month)}}
	}
	// A long health check interval: no Rook runs here to check again
	// while the benchmark runs (Rook's default, 60 s, would make the
	// status stale).
	interval := map[string]any{"daemonHealth": map[string]any{"status": map[string]any{"interval": "12h"}}}
	add("ceph.rook.io", "v1", "CephCluster", "rook-ceph", "rook-ceph", map[string]any{"dataDirHostPath": "/var/lib/rook", "healthCheck": interval}, map[string]any{
		"phase": "Ready", "state": "Created", "message": "Cluster created successfully", "observedGeneration": int64(1),
		"ceph":       map[string]any{"health": "HEALTH_OK", "lastChecked": ago(time.Minute), "lastChanged": ago(72 * time.Hour)},
		"conditions": []any{condition("Ready", "True", "ClusterCreated", month)},
	})
	add("ceph.rook.io", "v1", "CephBlockPool", "rook-ceph", "replicapool", map[string]any{"failureDomain": "host"}, map[string]any{"phase": "Ready", "observedGeneration": int64(1)})
	add("ceph.rook.io", "v1", "CephFilesystem", "rook-ceph", "cephfs", map[string]any{}, map[string]any{"phase": "Ready", "observedGeneration": int64(1)})
	storage := max(3, nodes/50)
	for i := range storage {
		add("longhorn.io", "v1beta2", "Node", "longhorn-system", fmt.Sprintf("worker-%04d", i+1), map[string]any{"allowScheduling": true}, map[string]any{
			"conditions": []any{condition("Ready", "True", "Ready", month), condition("Schedulable", "True", "Schedulable", month)},
		})
	}
	available := map[string]any{"availableReplicas": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "unavailableReplicas": int64(0),
		"conditions": []any{condition("Available", "True", "AllReplicasAvailable", month), condition("Reconciled", "True", "ReconciledSucceeded", month)}}
	add("monitoring.coreos.com", "v1", "Prometheus", "monitoring", "kube-prometheus-stack-prometheus", map[string]any{"replicas": int64(2)}, available)
	add("monitoring.coreos.com", "v1", "Alertmanager", "monitoring", "kube-prometheus-stack-alertmanager", map[string]any{"replicas": int64(3)}, available)
	add("cert-manager.io", "v1", "ClusterIssuer", "", "letsencrypt-prod", map[string]any{}, ready("ACMEAccountRegistered"))
	add("external-secrets.io", "v1", "ClusterSecretStore", "", "vault", map[string]any{}, ready("Valid"))
	add("postgresql.cnpg.io", "v1", "Cluster", tenants[0], "main", map[string]any{"instances": int64(3)}, map[string]any{
		"phase": "Cluster in healthy state", "instances": int64(3), "readyInstances": int64(3), "currentPrimary": "main-1", "targetPrimary": "main-1",
		"conditions": []any{condition("Ready", "True", "ClusterIsReady", month)},
	})
	for i := range nodes / 10 {
		st := ready("Ready")
		st["notBefore"], st["notAfter"], st["renewalTime"] = ago(720*time.Hour), now.Add(1440*time.Hour).UTC().Format(time.RFC3339), now.Add(720*time.Hour).UTC().Format(time.RFC3339)
		add("cert-manager.io", "v1", "Certificate", tenants[i%len(tenants)], fmt.Sprintf("tls-%04d", i), map[string]any{"secretName": fmt.Sprintf("tls-%04d", i)}, st)
	}
	for i := range nodes / 20 {
		add("argoproj.io", "v1alpha1", "Application", "argocd", fmt.Sprintf("app-%04d", i), map[string]any{"project": "default"}, map[string]any{
			"health": map[string]any{"status": "Healthy"}, "sync": map[string]any{"status": "Synced"},
		})
	}
	return out
}
