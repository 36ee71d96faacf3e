package topology

import (
	"slices"
	"strings"
)

// Layer categories (LayerDef.Category).
const (
	CategoryCNI          = "cni"
	CategoryStorage      = "storage"
	CategoryDatabase     = "database"
	CategoryMonitoring   = "monitoring"
	CategoryGitOps       = "gitops"
	CategoryIngress      = "ingress"
	CategoryLoadBalancer = "loadbalancer"
	CategoryCertificates = "certificates"
	CategorySecrets      = "secrets"
	CategoryMetrics      = "metrics"
	CategoryRegistry     = "registry"
	CategoryCustom       = "custom"
)

// catalog is the layer catalog: how each known layer is recognised on a
// live cluster and which workloads make it healthy. Each entry's Source names
// the upstream manifest or chart its names were read from. Workload names
// follow the upstream default install; AltNames cover the other official
// install method (usually a Helm chart, whose names carry the release name:
// those are path.Match patterns). An install renamed beyond these (a Helm
// fullnameOverride, another namespace) is not recognised: declare it as a
// custom layer with detect: instead.
var catalog = []LayerDef{
	{
		Name:       "cilium",
		Category:   CategoryCNI,
		Source:     "cilium/cilium install/kubernetes/cilium/templates/cilium-agent/daemonset.yaml (DaemonSet cilium), install/kubernetes/cilium/templates/cilium-operator/deployment.yaml (Deployment cilium-operator); CRDs in group cilium.io",
		CRDGroups:  []string{"cilium.io"},
		Namespaces: []string{"kube-system", "cilium"},
		Workloads: []Workload{
			{Kind: KindDaemonSet, Name: "cilium"},
			{Kind: KindDeployment, Name: "cilium-operator"},
		},
		Members: Members{PartOf: []string{"cilium"}},
	},
	{
		Name:       "calico",
		Category:   CategoryCNI,
		Source:     "projectcalico/calico manifests/calico.yaml (kube-system: DaemonSet calico-node, Deployment calico-kube-controllers; CRDs crd.projectcalico.org), manifests/tigera-operator.yaml (operator install: the same workloads in calico-system; CRDs operator.tigera.io)",
		CRDGroups:  []string{"crd.projectcalico.org", "operator.tigera.io"},
		Namespaces: []string{"calico-system", "kube-system"},
		Workloads: []Workload{
			{Kind: KindDaemonSet, Name: "calico-node"},
			{Kind: KindDeployment, Name: "calico-kube-controllers"},
		},
		Members: Members{Namespaces: []string{"calico-system"}},
	},
	{
		Name:       "flannel",
		Category:   CategoryCNI,
		Source:     "flannel-io/flannel Documentation/kube-flannel.yml (DaemonSet kube-flannel-ds in namespace kube-flannel; kube-system in older releases)",
		Namespaces: []string{"kube-flannel", "kube-system"},
		Workloads: []Workload{
			{Kind: KindDaemonSet, Name: "kube-flannel-ds"},
		},
		Members: Members{Namespaces: []string{"kube-flannel"}},
	},
	{
		Name:         "rook-ceph",
		Category:     CategoryStorage,
		Source:       "rook/rook deploy/examples/operator.yaml (Deployment rook-ceph-operator, namespace rook-ceph), deploy/examples/crds.yaml (group ceph.rook.io), deploy/examples/csi/rbd/storageclass.yaml and csi/cephfs/storageclass.yaml (provisioners rook-ceph.rbd.csi.ceph.com, rook-ceph.cephfs.csi.ceph.com); the operator creates Deployments rook-ceph-mon-<id>, rook-ceph-mgr-<id>, rook-ceph-osd-<id>",
		CRDGroups:    []string{"ceph.rook.io"},
		Provisioners: []string{"rook-ceph.rbd.csi.ceph.com", "rook-ceph.cephfs.csi.ceph.com"},
		Namespaces:   []string{"rook-ceph"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "rook-ceph-operator"},
			{Kind: KindDeployment, Name: "rook-ceph-mon-*"},
			{Kind: KindDeployment, Name: "rook-ceph-mgr-*"},
			{Kind: KindDeployment, Name: "rook-ceph-osd-*"},
		},
		Members: Members{Namespaces: []string{"rook-ceph"}},
		Status:  rookCephStatus,
	},
	{
		Name:         "local-path",
		Category:     CategoryStorage,
		Source:       "rancher/local-path-provisioner deploy/local-path-storage.yaml (Deployment local-path-provisioner in namespace local-path-storage, StorageClass local-path with provisioner rancher.io/local-path; k3s ships it in kube-system)",
		Provisioners: []string{"rancher.io/local-path"},
		Namespaces:   []string{"local-path-storage", "kube-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "local-path-provisioner", AltNames: []string{"*local-path-provisioner"}},
		},
		Members: Members{Namespaces: []string{"local-path-storage"}},
	},
	{
		Name:         "longhorn",
		Category:     CategoryStorage,
		Source:       "longhorn/longhorn deploy/longhorn.yaml (namespace longhorn-system: DaemonSet longhorn-manager, Deployments longhorn-driver-deployer and longhorn-ui; CRDs longhorn.io; StorageClass provisioner driver.longhorn.io)",
		CRDGroups:    []string{"longhorn.io"},
		Provisioners: []string{"driver.longhorn.io"},
		Namespaces:   []string{"longhorn-system"},
		Workloads: []Workload{
			{Kind: KindDaemonSet, Name: "longhorn-manager"},
			{Kind: KindDeployment, Name: "longhorn-driver-deployer"},
			{Kind: KindDeployment, Name: "longhorn-ui"},
		},
		Members: Members{Namespaces: []string{"longhorn-system"}},
		Status:  longhornStatus,
	},
	{
		Name:       "cnpg",
		Category:   CategoryDatabase,
		Source:     "cloudnative-pg/cloudnative-pg releases/cnpg-<version>.yaml built from config/default (namespace cnpg-system, prefix cnpg-) and config/manager/manager.yaml (Deployment controller-manager): cnpg-controller-manager; cloudnative-pg/charts charts/cloudnative-pg names it <release>-cloudnative-pg; CRDs postgresql.cnpg.io",
		CRDGroups:  []string{"postgresql.cnpg.io"},
		Namespaces: []string{"cnpg-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "cnpg-controller-manager", AltNames: []string{"*cloudnative-pg"}},
		},
		Members: Members{Namespaces: []string{"cnpg-system"}},
		Status:  cnpgStatus,
	},
	{
		Name:       "kube-prometheus-stack",
		Category:   CategoryMonitoring,
		Source:     "prometheus-community/helm-charts charts/kube-prometheus-stack/templates/_helpers.tpl (fullname: the release name when it contains the chart name, else <release>-kube-prometheus-stack, truncated to 26; operator <fullname>-operator), templates/prometheus-operator/deployment.yaml, templates/prometheus/prometheus.yaml (Prometheus <fullname>-prometheus, run by the operator as StatefulSet prometheus-<name>); CRDs monitoring.coreos.com",
		CRDGroups:  []string{"monitoring.coreos.com"},
		Namespaces: []string{"monitoring", "kube-prometheus-stack", "prometheus"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "*kube-prometheus*-operator"},
			{Kind: KindStatefulSet, Name: "prometheus-*kube-prometheus*-prometheus"},
		},
		Members: Members{PartOf: []string{"kube-prometheus-stack"}},
		Status:  prometheusStatus,
	},
	{
		Name:       "argocd",
		Category:   CategoryGitOps,
		Source:     "argoproj/argo-cd manifests/install.yaml (namespace argocd: Deployments argocd-server, argocd-repo-server, StatefulSet argocd-application-controller; CRDs argoproj.io, a group Argo Workflows and Rollouts share); argoproj/argo-helm charts/argo-cd prefixes <release>- unless the release is argocd",
		CRDGroups:  []string{"argoproj.io"},
		Namespaces: []string{"argocd"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "argocd-server", AltNames: []string{"*-argocd-server"}},
			{Kind: KindDeployment, Name: "argocd-repo-server", AltNames: []string{"*-argocd-repo-server"}},
			{Kind: KindStatefulSet, Name: "argocd-application-controller", AltNames: []string{"*-argocd-application-controller"}},
		},
		Members: Members{Namespaces: []string{"argocd"}, PartOf: []string{"argocd"}},
		Status:  argocdStatus,
	},
	{
		Name:       "flux",
		Category:   CategoryGitOps,
		Source:     "fluxcd/flux2 manifests/bases/{source,kustomize,helm,notification}-controller/kustomization.yaml (flux install: namespace flux-system, one Deployment per controller; CRDs *.toolkit.fluxcd.io)",
		CRDGroups:  []string{"source.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "notification.toolkit.fluxcd.io"},
		Namespaces: []string{"flux-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "source-controller"},
			{Kind: KindDeployment, Name: "kustomize-controller"},
			{Kind: KindDeployment, Name: "helm-controller"},
			{Kind: KindDeployment, Name: "notification-controller"},
		},
		Members: Members{Namespaces: []string{"flux-system"}, PartOf: []string{"flux"}},
		Status:  fluxStatus,
	},
	{
		Name:       "cert-manager",
		Category:   CategoryCertificates,
		Source:     "cert-manager/cert-manager deploy/charts/cert-manager/templates/deployment.yaml, cainjector-deployment.yaml, webhook-deployment.yaml (namespace cert-manager: cert-manager, cert-manager-cainjector, cert-manager-webhook); CRDs cert-manager.io, acme.cert-manager.io",
		CRDGroups:  []string{"cert-manager.io", "acme.cert-manager.io"},
		Namespaces: []string{"cert-manager"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "cert-manager", AltNames: []string{"*-cert-manager"}},
			{Kind: KindDeployment, Name: "cert-manager-cainjector", AltNames: []string{"*-cert-manager-cainjector", "*-cainjector"}},
			{Kind: KindDeployment, Name: "cert-manager-webhook", AltNames: []string{"*-cert-manager-webhook", "*-webhook"}},
		},
		Members: Members{Namespaces: []string{"cert-manager"}, PartOf: []string{"cert-manager"}},
		Status:  certManagerStatus,
	},
	{
		Name:       "ingress-nginx",
		Category:   CategoryIngress,
		Source:     "kubernetes/ingress-nginx deploy/static/provider/cloud/deploy.yaml (Deployment ingress-nginx-controller in namespace ingress-nginx); charts/ingress-nginx/templates/controller-deployment.yaml (<fullname>-controller)",
		Namespaces: []string{"ingress-nginx"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "ingress-nginx-controller", AltNames: []string{"*ingress-nginx-controller"}},
		},
		Members: Members{Namespaces: []string{"ingress-nginx"}},
	},
	{
		Name:       "traefik",
		Category:   CategoryIngress,
		Source:     "traefik/traefik-helm-chart traefik/templates/deployment.yaml (Deployment <release fullname>, traefik), traefik/templates/crds (group traefik.io; traefik.containo.us before v3); k3s installs it in kube-system",
		CRDGroups:  []string{"traefik.io", "traefik.containo.us"},
		Namespaces: []string{"traefik", "kube-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "traefik", AltNames: []string{"*-traefik"}},
		},
		Members: Members{Namespaces: []string{"traefik"}},
	},
	{
		Name:       "metallb",
		Category:   CategoryLoadBalancer,
		Source:     "metallb/metallb config/manifests/metallb-native.yaml (namespace metallb-system: Deployment controller, DaemonSet speaker; CRDs metallb.io); charts/metallb names them <release>-metallb-controller / -speaker",
		CRDGroups:  []string{"metallb.io"},
		Namespaces: []string{"metallb-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "controller", AltNames: []string{"*metallb-controller"}},
			{Kind: KindDaemonSet, Name: "speaker", AltNames: []string{"*metallb-speaker"}},
		},
		Members: Members{Namespaces: []string{"metallb-system"}},
	},
	{
		Name:       "external-secrets",
		Category:   CategorySecrets,
		Source:     "external-secrets/external-secrets deploy/charts/external-secrets/templates/deployment.yaml, webhook-deployment.yaml, cert-controller-deployment.yaml (release external-secrets: external-secrets, external-secrets-webhook, external-secrets-cert-controller); CRDs external-secrets.io, generators.external-secrets.io",
		CRDGroups:  []string{"external-secrets.io", "generators.external-secrets.io"},
		Namespaces: []string{"external-secrets", "external-secrets-system"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "external-secrets", AltNames: []string{"*-external-secrets"}},
			{Kind: KindDeployment, Name: "external-secrets-webhook", AltNames: []string{"*-external-secrets-webhook"}},
			{Kind: KindDeployment, Name: "external-secrets-cert-controller", AltNames: []string{"*-external-secrets-cert-controller"}},
		},
		Members: Members{Namespaces: []string{"external-secrets", "external-secrets-system"}},
		Status:  externalSecretsStatus,
	},
	{
		Name:       "metrics-server",
		Category:   CategoryMetrics,
		Source:     "kubernetes-sigs/metrics-server manifests/base/deployment.yaml (Deployment metrics-server in namespace kube-system); charts/metrics-server (<release>-metrics-server or metrics-server)",
		Namespaces: []string{"kube-system", "metrics-server"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "metrics-server", AltNames: []string{"*-metrics-server"}},
		},
		Members: Members{Namespaces: []string{"metrics-server"}},
	},
	{
		Name:       "registry",
		Category:   CategoryRegistry,
		Source:     "distribution/distribution (CNCF Distribution, image registry:2 / registry:3; no upstream manifest) run as Deployment registry in namespace registry; twuni/docker-registry.helm templates/deployment.yaml names it <release>-docker-registry",
		Namespaces: []string{"registry"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "registry", AltNames: []string{"*docker-registry"}},
		},
		Members: Members{Namespaces: []string{"registry"}},
	},
	{
		Name:       "harbor",
		Category:   CategoryRegistry,
		Source:     "goharbor/harbor-helm templates/core/core-dpl.yaml, templates/portal/deployment.yaml, templates/registry/registry-dpl.yaml, templates/jobservice/jobservice-dpl.yaml (<fullname>-core, -portal, -registry, -jobservice; fullname is the release name when it contains harbor)",
		Namespaces: []string{"harbor"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "harbor-core", AltNames: []string{"*harbor-core"}},
			{Kind: KindDeployment, Name: "harbor-portal", AltNames: []string{"*harbor-portal"}},
			{Kind: KindDeployment, Name: "harbor-registry", AltNames: []string{"*harbor-registry"}},
			{Kind: KindDeployment, Name: "harbor-jobservice", AltNames: []string{"*harbor-jobservice"}},
		},
		Members: Members{Namespaces: []string{"harbor"}},
	},
}

// backendAliases maps the names a topology may use for `backend:` to the
// catalog layer (the example stacks write `backend: ceph`).
var backendAliases = map[string]string{
	"ceph":                   "rook-ceph",
	"rook":                   "rook-ceph",
	"rook-ceph":              "rook-ceph",
	"local-path":             "local-path",
	"local-path-provisioner": "local-path",
	"longhorn":               "longhorn",
}

func cloneDef(d LayerDef) LayerDef {
	d.CRDGroups = slices.Clone(d.CRDGroups)
	d.Provisioners = slices.Clone(d.Provisioners)
	d.Namespaces = slices.Clone(d.Namespaces)
	ws := make([]Workload, len(d.Workloads))
	for i, w := range d.Workloads {
		w.AltNames = slices.Clone(w.AltNames)
		ws[i] = w
	}
	if d.Workloads == nil {
		ws = nil
	}
	d.Workloads = ws
	return d
}

// Catalog returns a copy of the layer catalog, in its fixed order (CNIs,
// storage, then the rest).
func Catalog() []LayerDef {
	out := make([]LayerDef, len(catalog))
	for i, d := range catalog {
		out[i] = cloneDef(d)
	}
	return out
}

// CatalogNames returns the catalog's layer names, in catalog order.
func CatalogNames() []string {
	out := make([]string, len(catalog))
	for i, d := range catalog {
		out[i] = d.Name
	}
	return out
}

// CatalogLayer returns the catalog entry called name (exact name, no alias).
func CatalogLayer(name string) (LayerDef, bool) {
	for _, d := range catalog {
		if d.Name == name {
			return cloneDef(d), true
		}
	}
	return LayerDef{}, false
}

// LayerDefFor returns how the declared layer ref is detected: a custom layer
// (one with detect:) becomes a LayerDef of Category "custom" whose workloads,
// namespace and CRD group are the detect: entries (its Source says so), and
// whose Status is its detect.resource, when given; any
// other ref is looked up in the catalog. ok is false for a name that is
// neither (Parse never lets one through).
func LayerDefFor(ref LayerRef) (LayerDef, bool) {
	if ref.Detect == nil {
		return CatalogLayer(ref.Name)
	}
	d := LayerDef{Name: ref.Name, Category: CategoryCustom, Source: "topology detect:"}
	det := ref.Detect
	if det.CRDGroup != "" {
		d.CRDGroups = []string{det.CRDGroup}
	}
	if det.Namespace != "" {
		d.Namespaces = []string{det.Namespace}
	}
	for _, w := range []struct{ kind, ref string }{
		{KindDeployment, det.Deployment},
		{KindDaemonSet, det.DaemonSet},
		{KindStatefulSet, det.StatefulSet},
	} {
		if w.ref == "" {
			continue
		}
		ns, name, _ := strings.Cut(w.ref, "/")
		d.Workloads = append(d.Workloads, Workload{Kind: w.kind, Name: name, Namespace: ns})
	}
	if det.Resource != nil {
		d.Status = []StatusResource{det.Resource.StatusResource()}
	}
	return d, true
}

// BackendLayer maps a `backend:` value to its catalog storage layer: "ceph"
// and "rook" → "rook-ceph", "local-path-provisioner" → "local-path", and
// each storage layer's own name to itself. ok is false for anything else.
func BackendLayer(backend string) (string, bool) {
	if l, ok := backendAliases[backend]; ok {
		return l, true
	}
	if d, ok := CatalogLayer(backend); ok && d.Category == CategoryStorage {
		return d.Name, true
	}
	return "", false
}

// BackendForProvisioner returns the catalog storage layer whose StorageClass
// provisioner is prov ("rancher.io/local-path" → "local-path"), or "".
func BackendForProvisioner(prov string) string {
	for _, d := range catalog {
		if slices.Contains(d.Provisioners, prov) {
			return d.Name
		}
	}
	return ""
}
