package kapsule

import (
	"context"
	"slices"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// kapsuleMarks is how Kapsule marks what it installs in kube-system, and
// how it writes it:
//
//   - the labels: Kapsule's objects carry k8s.scw.cloud/system (the
//     component: "cni", "coredns"…) and k8s.scw.cloud/object (the kind),
//     and CoreDNS's ConfigMap addonmanager.kubernetes.io/mode: EnsureExists
//     — as seen on live Kapsule objects (the cilium-operator
//     PodDisruptionBudget recorded in Qovery/engine's tests, the CoreDNS
//     ConfigMap labels Qovery/engine's chart keeps when it replaces it);
//   - the mode: the upstream addon manager's (kubernetes
//     cluster/addons/addon-manager README): Reconcile objects are brought
//     back to the original, EnsureExists ones only re-created;
//   - the managers: that same recorded object carries
//     kubectl.kubernetes.io/last-applied-configuration, which only a
//     client-side `kubectl apply` (field manager kubectl-client-side-apply)
//     or a `kubectl create` told to save its configuration (kubectl-create)
//     writes — the
//     upstream addon manager's Reconcile and EnsureExists commands
//     (cluster/addons/addon-manager/kube-addons.sh). The provider does not
//     publish its managers: when an object has no write by them, the
//     provider's write is the one that set the marks (topology
//     ProviderObjects.Derive). Both are anyone's kubectl managers too, so
//     they never mark an object by themselves;
//   - the kinds read: what Kapsule installs there (CoreDNS's ConfigMap,
//     Service, ServiceAccount and Deployment; the CNI's, konnectivity's,
//     the CSI node plugin's and metrics-server's DaemonSets and
//     Deployments; the cilium-operator PodDisruptionBudget). Secrets are
//     never read.
//
// The provider's shared-responsibility page: "Ensure that the kube-system
// namespace remains unmodified to avoid upgrade failures"; when users
// modify or replace preinstalled components, responsibility transfers to
// the customer.
var kapsuleMarks = topology.ProviderMarks{
	Provider:  "Scaleway",
	Namespace: "kube-system",
	Resources: []topology.ProviderResource{
		{Group: "", Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		{Group: "", Version: "v1", Resource: "services", Kind: "Service"},
		{Group: "", Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount"},
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"},
		{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet"},
		{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget"},
	},
	Labels:   []string{"k8s.scw.cloud/system", "k8s.scw.cloud/object"},
	ModeKey:  topology.AddonModeKey,
	Managers: []string{"kubectl-client-side-apply", "kubectl-create"},
	Source:   "Scaleway's Kubernetes shared-responsibility model (kube-system is the provider's until modified); kubernetes cluster/addons/addon-manager README (Reconcile, EnsureExists)",
}

// ProviderMarks is Kapsule's kube-system: its marks, mode, managers and
// the kinds of object read there (kapsuleMarks).
func (Kind) ProviderMarks() topology.ProviderMarks {
	m := kapsuleMarks
	m.Resources = slices.Clone(m.Resources)
	m.Labels = slices.Clone(m.Labels)
	m.Managers = slices.Clone(m.Managers)
	return m
}

// providerObjects reads Kapsule's kube-system (probes.ReadProviderObjects);
// whose each object is and what edited it is judged after the read
// (topology.ProviderObjects.Derive).
func providerObjects(ctx context.Context, t *probes.Target) *topology.ProviderObjects {
	return probes.ReadProviderObjects(ctx, t, Kind{}.ProviderMarks())
}

// unreadProviderObjects is Kapsule's kube-system not read, every list
// unknown with why.
func unreadProviderObjects(why topology.Why) *topology.ProviderObjects {
	m := Kind{}.ProviderMarks()
	p := &topology.ProviderObjects{Marks: m}
	for _, r := range m.Resources {
		p.Lists = append(p.Lists, topology.ProviderObjectList{ProviderResource: r, Objects: topology.UnknownFact[[]topology.NamespaceObject](why)})
	}
	return p
}
