package health

import (
	"testing"

	"nestor.dev/nestor/topology"
)

// TestCatalogWorkloadNames checks the names each install method really
// produces match, and that near misses do not.
func TestCatalogWorkloadNames(t *testing.T) {
	tests := []struct {
		layer, kind string
		name        string
		match       bool
	}{
		{"kube-prometheus-stack", topology.KindDeployment, "kube-prometheus-stack-operator", true},      // release kube-prometheus-stack
		{"kube-prometheus-stack", topology.KindDeployment, "prometheus-kube-prometheus-operator", true}, // release prometheus (truncated to 26)
		{"kube-prometheus-stack", topology.KindDeployment, "monitoring-kube-prometheus-operator", true}, // release monitoring
		{"kube-prometheus-stack", topology.KindStatefulSet, "prometheus-kube-prometheus-stack-prometheus", true},
		{"kube-prometheus-stack", topology.KindStatefulSet, "prometheus-prometheus-kube-prometheus-prometheus", true},
		{"kube-prometheus-stack", topology.KindDeployment, "cnpg-operator", false},
		{"kube-prometheus-stack", topology.KindDeployment, "tigera-operator", false},
		{"kube-prometheus-stack", topology.KindDeployment, "rook-ceph-operator", false},
		{"kube-prometheus-stack", topology.KindDeployment, "prometheus-operator", false},
		{"argocd", topology.KindDeployment, "argocd-repo-server", true},
		{"argocd", topology.KindDeployment, "argo-cd-argocd-repo-server", true},
		{"argocd", topology.KindStatefulSet, "argocd-application-controller", true},
		{"argocd", topology.KindDeployment, "argocd-application-controller", false}, // kind matters
		{"cnpg", topology.KindDeployment, "cnpg-controller-manager", true},
		{"cnpg", topology.KindDeployment, "cnpg-cloudnative-pg", true},
		{"metallb", topology.KindDeployment, "controller", true},
		{"metallb", topology.KindDeployment, "metallb-controller", true},
		{"metallb", topology.KindDaemonSet, "metallb-speaker", true},
		{"rook-ceph", topology.KindDeployment, "rook-ceph-mon-a", true},
		{"rook-ceph", topology.KindDeployment, "rook-ceph-osd-12", true},
		{"registry", topology.KindDeployment, "registry", true},
		{"registry", topology.KindDeployment, "registry-docker-registry", true},
		{"harbor", topology.KindDeployment, "harbor-core", true},
		{"harbor", topology.KindDeployment, "my-harbor-core", true},
		{"flannel", topology.KindDaemonSet, "kube-flannel-ds", true},
		{"cert-manager", topology.KindDeployment, "cert-manager-webhook", true},
	}
	for _, tc := range tests {
		d, _ := topology.CatalogLayer(tc.layer)
		got := false
		for _, w := range d.Workloads {
			if workloadMatches(w, topology.WorkloadState{Kind: tc.kind, Name: tc.name}) {
				got = true
			}
		}
		if got != tc.match {
			t.Errorf("%s: %s %s matches = %v, want %v", tc.layer, tc.kind, tc.name, got, tc.match)
		}
	}
}
