package topology

import (
	"testing"
)

// TestCatalogWorkloadNames checks the names each install method really
// produces match, and that near misses do not.
func TestCatalogWorkloadNames(t *testing.T) {
	tests := []struct {
		layer, kind string
		name        string
		match       bool
	}{
		{"kube-prometheus-stack", KindDeployment, "kube-prometheus-stack-operator", true},      // release kube-prometheus-stack
		{"kube-prometheus-stack", KindDeployment, "prometheus-kube-prometheus-operator", true}, // release prometheus (truncated to 26)
		{"kube-prometheus-stack", KindDeployment, "monitoring-kube-prometheus-operator", true}, // release monitoring
		{"kube-prometheus-stack", KindStatefulSet, "prometheus-kube-prometheus-stack-prometheus", true},
		{"kube-prometheus-stack", KindStatefulSet, "prometheus-prometheus-kube-prometheus-prometheus", true},
		{"kube-prometheus-stack", KindDeployment, "cnpg-operator", false},
		{"kube-prometheus-stack", KindDeployment, "tigera-operator", false},
		{"kube-prometheus-stack", KindDeployment, "rook-ceph-operator", false},
		{"kube-prometheus-stack", KindDeployment, "prometheus-operator", false},
		{"argocd", KindDeployment, "argocd-repo-server", true},
		{"argocd", KindDeployment, "argo-cd-argocd-repo-server", true},
		{"argocd", KindStatefulSet, "argocd-application-controller", true},
		{"argocd", KindDeployment, "argocd-application-controller", false}, // kind matters
		{"cnpg", KindDeployment, "cnpg-controller-manager", true},
		{"cnpg", KindDeployment, "cnpg-cloudnative-pg", true},
		{"metallb", KindDeployment, "controller", true},
		{"metallb", KindDeployment, "metallb-controller", true},
		{"metallb", KindDaemonSet, "metallb-speaker", true},
		{"rook-ceph", KindDeployment, "rook-ceph-mon-a", true},
		{"rook-ceph", KindDeployment, "rook-ceph-osd-12", true},
		{"registry", KindDeployment, "registry", true},
		{"registry", KindDeployment, "registry-docker-registry", true},
		{"harbor", KindDeployment, "harbor-core", true},
		{"harbor", KindDeployment, "my-harbor-core", true},
		{"flannel", KindDaemonSet, "kube-flannel-ds", true},
		{"cert-manager", KindDeployment, "cert-manager-webhook", true},
	}
	for _, tc := range tests {
		d, _ := CatalogLayer(tc.layer)
		got := false
		for _, w := range d.Workloads {
			if workloadMatches(w, WorkloadState{Kind: tc.kind, Name: tc.name}) {
				got = true
			}
		}
		if got != tc.match {
			t.Errorf("%s: %s %s matches = %v, want %v", tc.layer, tc.kind, tc.name, got, tc.match)
		}
	}
}
