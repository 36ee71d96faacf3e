package upgrade

import (
	"fmt"
	"time"

	"github.com/distribution/reference"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// layerSupportAsOf is the day the layer support table was last checked
// against its sources.
var layerSupportAsOf = kube.Day(2026, 11, 30)

// LayerSupport is what one catalog layer's project publishes about the
// Kubernetes minors each of its releases supports or is tested with.
type LayerSupport struct {
	// Layer is the catalog layer's name ("cilium").
	Layer string
	// AsOf is the day the rows were last checked against their sources: a
	// release newer than every row may have come out since.
	AsOf time.Time
	// Main is the workload and container whose image tag tells the layer's
	// release.
	Main MainWorkload
	// Releases are the rows read, oldest release first. Empty when no
	// source was found or read (Note says so).
	Releases []LayerRelease
	// Note says what the table lacks or how the project words its support.
	Note string
	// Older says what the project's pages state of the releases before
	// the first row ("" when nothing is known of them): the reason a
	// release older than every row is not judged.
	Older string
}

// MainWorkload names the workload and container of a layer whose image
// carries the layer's release.
type MainWorkload struct {
	Kind string
	// Name is the workload's name in the upstream default install (a
	// catalog Workload name, possibly a path.Match pattern).
	Name      string
	Container string
	// ImageIsRelease is false when the container's image tag is not the
	// layer's release (a component's own version): ImageNote says why, and
	// the release cannot be read from the image.
	ImageIsRelease bool
	ImageNote      string
	// Source names the upstream manifest the names were read from.
	Source string
}

// LayerRelease is one release (a minor, "1.19", standing for all its
// patches, or one patch, "1.11.1") and the Kubernetes minors its project
// states for it: Min to Max inclusive ("1.32", "1.35"); Max "" when the
// project publishes a minimum only.
type LayerRelease struct {
	Release string
	Min     string
	Max     string
	// Claim is the project's own word for the range, as a verb phrase
	// ("is tested with", "supports", "requires").
	Claim string
	// Note adds what the source says beside the range (minors tested but
	// not supported, a narrower tested range).
	Note string
	// Source is the URL or file read.
	Source string
}

// Sources of the layer support table, kept with the code. A release's
// own page is cited by its tag or commit; a page that lists several
// releases is cited once, at the commit read.
const (
	srcCilium116 = "https://github.com/cilium/cilium/blob/2ab5f8da5915992a1e548c290105dbc08f4be52d/Documentation/network/kubernetes/compatibility.rst (the v1.16.7 documentation)"
	srcCilium118 = "https://raw.githubusercontent.com/cilium/cilium/v1.18.14/Documentation/network/kubernetes/compatibility.rst"
	srcCilium119 = "cilium/cilium v1.19.3 Documentation/network/kubernetes/compatibility.rst, read at https://contextqmd.com/libraries/cilium/versions/1.19.3/pages/Documentation/network/kubernetes/compatibility"
	srcRook      = "https://rook.io/docs/rook/latest/Getting-Started/maintenance-and-support/ (Supported Versions: the Kubernetes versions each Rook minor supported at its release)"
	srcRookTable = "https://github.com/rook/rook/blob/d0c3b9ce6d64ff0c47074437aab7314b7adf7f2c/Documentation/Getting-Started/maintenance-and-support.md (Supported Versions)"
	srcCNPG      = "https://github.com/cloudnative-pg/cloudnative-pg/blob/01d612bf3e1daf51af15928d8e5eaa26a4275849/docs/src/supported_releases.md (Support status; Old releases)"
	srcArgoCD    = "https://github.com/argoproj/argo-cd/blob/030b4f982b2a0f6a97cb3d3f3616c14df0f58c48/docs/operator-manual/tested-kubernetes-versions.md"
	srcCertMgr   = "https://github.com/cert-manager/website/blob/f97947d228213c30791637d7725b00d6a0b770b7/content/docs/releases/README.md (Supported Releases; Old cert-manager releases)"
	srcESO       = "https://github.com/external-secrets/external-secrets/blob/0060da0b62ef6725f88171a6a16c52ff6dd941ae/docs/introduction/stability-support.md"
	srcESO2026   = "https://github.com/external-secrets/external-secrets/blob/cc5bfbc2234ace9cb0caff4ea89c435cf517b27b/docs/introduction/stability-support.md (Supported Versions)"
	srcIngress   = "https://github.com/kubernetes/ingress-nginx/blob/dbb11b92ddb77bee9c35e462479129354c84f939/README.md (Supported Versions table)"
	srcFlux21    = "fluxcd/flux2 v2.1.0 release notes, Kubernetes compatibility, as quoted in https://github.com/CowDogMoo/Walls-of-Excellence/pull/226"
	srcLonghorn  = "https://documentation.suse.com/external-tree/en-us/cloudnative/storage/1.7.0/en/installation-setup/requirements.html (Longhorn 1.7.0 requirements)"
)

// Sources read at a release's tag: the file at that tag.
func srcArgoCDAt(tag string) string {
	return "https://github.com/argoproj/argo-cd/blob/" + tag + "/docs/operator-manual/tested-kubernetes-versions.md"
}

func srcRookAt(tag, file string) string {
	return "https://github.com/rook/rook/blob/" + tag + "/Documentation/" + file
}

func srcFluxAt(tag string) string {
	return "https://github.com/fluxcd/flux2/blob/" + tag + "/cmd/flux/check.go (kubernetesConstraints, which flux check enforces)"
}

func srcLonghornAt(tag string) string {
	return "https://github.com/longhorn/longhorn/blob/" + tag + "/chart/Chart.yaml (kubeVersion)"
}

func srcMetalLBAt(tag string) string {
	return "https://github.com/metallb/metallb/blob/" + tag + "/website/content/_index.md (Requirements)"
}

// LayerSupportTable returns the layer support table as of its AsOf day
// (2026-11-30), one entry per catalog layer it covers, in catalog order.
// Only what was read in the sources named on each row is recorded: a
// release or minor missing from a row is unknown, never unsupported. Each
// entry goes back as far as its project's pages state a release's
// Kubernetes versions; Older says what they state of the releases before
// its first row.
func LayerSupportTable() []LayerSupport {
	r := func(release, min, max, claim, src string) LayerRelease {
		return LayerRelease{Release: release, Min: min, Max: max, Claim: claim, Source: src}
	}
	withNote := func(lr LayerRelease, note string) LayerRelease { lr.Note = note; return lr }
	const cnpgSupports = "supports"
	const (
		compatible  = "is compatible with"
		e2eTested   = "is e2e tested with"
		tested      = "is tested with"
		supports    = "supports"
		requires    = "requires"
		chartAccept = "is installable (its Helm chart's kubeVersion) on"
	)
	return []LayerSupport{
		{
			Layer: "cilium", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDaemonSet, Name: "cilium", Container: "cilium-agent", ImageIsRelease: true,
				Source: "cilium/cilium install/kubernetes/cilium/templates/cilium-agent/daemonset.yaml (image quay.io/cilium/cilium:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.16", "1.27", "1.30", e2eTested, srcCilium116),
				r("1.18", "1.30", "1.33", e2eTested, srcCilium118),
				r("1.19", "1.32", "1.35", e2eTested, srcCilium119),
			},
			Note:  "Cilium: versions listed are e2e tested and guaranteed; others depend on Kubernetes' own compatibility. The page of 1.17 was not read.",
			Older: "Cilium's compatibility pages of the releases before 1.16 were not read",
		},
		{
			Layer: "rook-ceph", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "rook-ceph-operator", Container: "rook-ceph-operator", ImageIsRelease: true,
				Source: "rook/rook deploy/examples/operator.yaml (image docker.io/rook/ceph:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.0", "1.10", "", supports, srcRookAt("v1.0.6", "k8s-pre-reqs.md")),
				r("1.1", "1.10", "", supports, srcRookAt("v1.1.9", "k8s-pre-reqs.md")),
				r("1.2", "1.11", "", supports, srcRookAt("v1.2.7", "k8s-pre-reqs.md")),
				r("1.3", "1.11", "", supports, srcRookAt("v1.3.11", "k8s-pre-reqs.md")),
				r("1.4", "1.11", "", supports, srcRookAt("v1.4.9", "k8s-pre-reqs.md")),
				r("1.5", "1.11", "", supports, srcRookAt("v1.5.12", "k8s-pre-reqs.md")),
				r("1.6", "1.11", "", supports, srcRookAt("v1.6.11", "k8s-pre-reqs.md")),
				r("1.7", "1.11", "", supports, srcRookAt("v1.7.11", "pre-reqs.md")),
				r("1.8", "1.16", "", supports, srcRookAt("v1.8.10", "pre-reqs.md")),
				r("1.9", "1.17", "", supports, srcRookAt("v1.9.13", "Getting-Started/Prerequisites/prerequisites.md")),
				r("1.10", "1.19", "", supports, srcRookAt("v1.10.13", "Getting-Started/Prerequisites/prerequisites.md")),
				r("1.11", "1.21", "", supports, srcRookAt("v1.11.11", "Getting-Started/Prerequisites/prerequisites.md")),
				r("1.12", "1.22", "1.28", supports, srcRookTable),
				r("1.13", "1.23", "1.29", supports, srcRookTable),
				r("1.14", "1.25", "1.30", supports, srcRook),
				r("1.15", "1.26", "1.31", supports, srcRook),
				r("1.16", "1.27", "1.32", supports, srcRook),
				r("1.17", "1.28", "1.33", supports, srcRook),
				r("1.18", "1.29", "1.34", supports, srcRook),
				r("1.19", "1.30", "1.35", supports, srcRook),
				r("1.20", "1.31", "1.36", supports, srcRook),
			},
			Note:  "Rook: the range each minor supported at its release; patch releases occasionally extend it. Before 1.12 each release's prerequisites state a minimum only.",
			Older: "the prerequisites of Rook's releases before 1.0 were not read",
		},
		{
			Layer: "cnpg", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "cnpg-controller-manager", Container: "manager", ImageIsRelease: true,
				Source: "cloudnative-pg/cloudnative-pg config/manager/manager.yaml (container manager, image ghcr.io/cloudnative-pg/cloudnative-pg:X.Y.Z, no v)"},
			Releases: []LayerRelease{
				r("1.15", "1.21", "1.23", compatible, srcCNPG),
				r("1.16", "1.22", "1.24", compatible, srcCNPG),
				r("1.17", "1.22", "1.24", compatible, srcCNPG),
				r("1.18", "1.23", "1.27", compatible, srcCNPG),
				r("1.19", "1.23", "1.26", compatible, srcCNPG),
				r("1.20", "1.24", "1.27", compatible, srcCNPG),
				r("1.21", "1.25", "1.28", compatible, srcCNPG),
				r("1.22", "1.26", "1.28", compatible, srcCNPG),
				r("1.23", "1.27", "1.29", compatible, srcCNPG),
				r("1.24", "1.28", "1.31", compatible, srcCNPG),
				withNote(r("1.25", "1.29", "1.32", cnpgSupports, srcCNPG), "1.33 tested, but not supported"),
				withNote(r("1.26", "1.30", "1.33", cnpgSupports, srcCNPG), "1.29 tested, but not supported"),
				withNote(r("1.27", "1.31", "1.33", cnpgSupports, srcCNPG), "1.29 and 1.30 tested, but not supported"),
			},
			Older: "CloudNativePG's supported-releases page lists its old releases from 1.15 on",
		},
		{
			Layer: "kube-prometheus-stack", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "*kube-prometheus*-operator", Container: "kube-prometheus-stack",
				ImageNote: "the operator's image (quay.io/prometheus-operator/prometheus-operator:vX) is Prometheus Operator's release, not the chart's",
				Source:    "prometheus-community/helm-charts charts/kube-prometheus-stack/templates/prometheus-operator/deployment.yaml"},
			Note: "No per-release Kubernetes table was found: Prometheus Operator states that the Kubernetes versions it supports are those its client-go supports (prometheus-operator Documentation/compatibility).",
		},
		{
			Layer: "argocd", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindStatefulSet, Name: "argocd-application-controller", Container: "argocd-application-controller", ImageIsRelease: true,
				Source: "argoproj/argo-cd manifests/install.yaml (image quay.io/argoproj/argocd:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("2.8", "1.24", "1.27", tested, srcArgoCDAt("v2.8.21")),
				r("2.9", "1.25", "1.28", tested, srcArgoCDAt("v2.9.22")),
				r("2.10", "1.25", "1.28", tested, srcArgoCDAt("v2.10.20")),
				r("2.11", "1.25", "1.29", tested, srcArgoCDAt("v2.11.14")),
				r("2.12", "1.26", "1.29", tested, srcArgoCDAt("v2.12.13")),
				r("2.13", "1.27", "1.30", tested, srcArgoCDAt("v2.13.9")),
				r("2.14", "1.28", "1.31", tested, srcArgoCDAt("v2.14.21")),
				r("3.0", "1.29", "1.32", tested, srcArgoCD),
				r("3.1", "1.31", "1.34", tested, srcArgoCD),
				r("3.2", "1.31", "1.34", tested, srcArgoCD),
				r("3.3", "1.32", "1.35", tested, srcArgoCDAt("v3.3.14")),
				r("3.4", "1.32", "1.35", tested, srcArgoCDAt("v3.4.7")),
				r("3.5", "1.33", "1.36", tested, srcArgoCDAt("v3.5.1")),
			},
			Older: "before 2.8 Argo CD's documentation names no Kubernetes minors per release: it says its releases are supported on the versions Kubernetes itself supports (docs/operator-manual/installation.md, Supported versions, at v2.7.18)",
		},
		{
			Layer: "flux", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "source-controller", Container: "manager",
				ImageNote: "each Flux controller's image carries that controller's own version (source-controller v1.7.4 in Flux v2.7.5), not Flux's",
				Source:    "fluxcd/flux2 manifests/bases/source-controller"},
			Releases: []LayerRelease{
				r("2.0", "1.24", "", requires, srcFluxAt("v2.0.1")),
				r("2.1", "1.25", "1.28", compatible, srcFlux21),
				r("2.2", "1.26", "", requires, srcFluxAt("v2.2.3")),
				r("2.3", "1.28", "", requires, srcFluxAt("v2.3.0")),
				r("2.4", "1.28", "", requires, srcFluxAt("v2.4.0")),
				r("2.5", "1.30", "", requires, srcFluxAt("v2.5.1")),
				r("2.6", "1.31", "", requires, srcFluxAt("v2.6.4")),
				r("2.7", "1.32", "", requires, srcFluxAt("v2.7.5")),
				r("2.8", "1.33", "", requires, srcFluxAt("v2.8.8")),
				r("2.9", "1.33", "", requires, srcFluxAt("v2.9.4")),
			},
			Note:  "Flux supports the Kubernetes minors supported upstream and runs its end-to-end tests on the latest minor (fluxcd.io/flux/releases, Kubernetes supported versions); each minor's own range is in its release notes, and flux check enforces its minimum.",
			Older: "flux2's releases before 2.0 (v0.x) were not read",
		},
		{
			Layer: "cert-manager", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "cert-manager", Container: "cert-manager-controller", ImageIsRelease: true,
				Source: "cert-manager/cert-manager deploy/charts/cert-manager/templates/deployment.yaml (image quay.io/jetstack/cert-manager-controller:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("0.11", "1.9", "1.21", compatible, srcCertMgr),
				r("0.12", "1.11", "1.21", compatible, srcCertMgr),
				r("0.13", "1.11", "1.21", compatible, srcCertMgr),
				r("0.14", "1.11", "1.21", compatible, srcCertMgr),
				r("0.15", "1.11", "1.21", compatible, srcCertMgr),
				r("0.16", "1.11", "1.21", compatible, srcCertMgr),
				r("1.0", "1.11", "1.21", compatible, srcCertMgr),
				r("1.1", "1.11", "1.21", compatible, srcCertMgr),
				r("1.2", "1.16", "1.21", compatible, srcCertMgr),
				r("1.3", "1.16", "1.21", compatible, srcCertMgr),
				r("1.4", "1.16", "1.21", compatible, srcCertMgr),
				r("1.5", "1.16", "1.22", compatible, srcCertMgr),
				r("1.6", "1.17", "1.22", compatible, srcCertMgr),
				r("1.7", "1.18", "1.23", compatible, srcCertMgr),
				r("1.8", "1.19", "1.24", compatible, srcCertMgr),
				r("1.9", "1.20", "1.24", compatible, srcCertMgr),
				r("1.10", "1.20", "1.26", compatible, srcCertMgr),
				r("1.11", "1.21", "1.27", compatible, srcCertMgr),
				r("1.12", "1.22", "1.32", compatible, srcCertMgr),
				r("1.13", "1.21", "1.27", compatible, srcCertMgr),
				r("1.14", "1.24", "1.31", compatible, srcCertMgr),
				r("1.15", "1.25", "1.32", compatible, srcCertMgr),
				withNote(r("1.16", "1.25", "1.32", "supports", srcCertMgr), "tested with 1.27 to 1.31"),
				withNote(r("1.17", "1.29", "1.32", "supports", srcCertMgr), "tested with 1.29 to 1.32"),
				withNote(r("1.18", "1.29", "1.33", "supports", srcCertMgr), "tested with 1.30 to 1.33 (listed as upcoming on the page read)"),
			},
			Older: "cert-manager's supported-releases page lists its old releases from 0.11 on",
		},
		{
			Layer: "longhorn", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDaemonSet, Name: "longhorn-manager", Container: "longhorn-manager", ImageIsRelease: true,
				Source: "longhorn/longhorn deploy/longhorn.yaml (image longhornio/longhorn-manager:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.0", "1.14", "", chartAccept, srcLonghornAt("v1.0.2")),
				r("1.1", "1.16", "1.21", chartAccept, srcLonghornAt("v1.1.3")),
				r("1.2", "1.18", "1.24", chartAccept, srcLonghornAt("v1.2.6")),
				r("1.3", "1.18", "1.24", chartAccept, srcLonghornAt("v1.3.3")),
				r("1.4", "1.21", "", chartAccept, srcLonghornAt("v1.4.4")),
				r("1.5", "1.21", "", chartAccept, srcLonghornAt("v1.5.5")),
				r("1.6", "1.21", "", chartAccept, srcLonghornAt("v1.6.4")),
				r("1.7", "1.21", "", requires, srcLonghorn),
				r("1.8", "1.25", "", chartAccept, srcLonghornAt("v1.8.2")),
				r("1.9", "1.25", "", chartAccept, srcLonghornAt("v1.9.2")),
				r("1.10", "1.25", "", chartAccept, srcLonghornAt("v1.10.2")),
				r("1.11", "1.25", "", chartAccept, srcLonghornAt("v1.11.3")),
				r("1.12", "1.25", "", chartAccept, srcLonghornAt("v1.12.1")),
			},
			Note:  "Longhorn publishes a minimum Kubernetes version per release (its chart's kubeVersion), with an upper bound for 1.1 to 1.3 only.",
			Older: "Longhorn's releases before 1.0 were not read",
		},
		{
			Layer: "metallb", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "controller", Container: "controller", ImageIsRelease: true,
				Source: "metallb/metallb config/manifests/metallb-native.yaml (image quay.io/metallb/controller:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("0.7", "1.9", "", requires, srcMetalLBAt("v0.7.3")),
				r("0.8", "1.13", "", requires, srcMetalLBAt("v0.8.3")),
				r("0.9", "1.13", "", requires, srcMetalLBAt("v0.9.8")),
				r("0.10", "1.13", "", requires, srcMetalLBAt("v0.10.3")),
				r("0.11", "1.13", "", requires, srcMetalLBAt("v0.11.0")),
				r("0.12", "1.13", "", requires, srcMetalLBAt("v0.12.1")),
				r("0.13", "1.13", "", requires, srcMetalLBAt("v0.13.12")),
				r("0.14", "1.13", "", requires, srcMetalLBAt("v0.14.9")),
				r("0.15", "1.13", "", requires, srcMetalLBAt("v0.15.3")),
				r("0.16", "1.13", "", requires, srcMetalLBAt("v0.16.1")),
			},
			Note:  "MetalLB's requirements state a minimum Kubernetes version per release, no upper bound (its Helm chart asks 1.19 or newer from 0.13 on).",
			Older: "MetalLB's requirements before 0.7 were not read",
		},
		{
			Layer: "ingress-nginx", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "ingress-nginx-controller", Container: "controller", ImageIsRelease: true,
				Source: "kubernetes/ingress-nginx deploy/static/provider/cloud/deploy.yaml (image registry.k8s.io/ingress-nginx/controller:vX.Y.Z@sha256:…)"},
			Releases: ingressNginxReleases(e2eTested),
			Note:     "ingress-nginx lists its supported Kubernetes minors per patch release.",
			Older:    "ingress-nginx's Supported Versions table starts at v1.3.1",
		},
		{
			Layer: "external-secrets", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: topology.KindDeployment, Name: "external-secrets", Container: "external-secrets", ImageIsRelease: true,
				Source: "external-secrets/external-secrets deploy/charts/external-secrets/templates/deployment.yaml (image oci.external-secrets.io/external-secrets/external-secrets:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("0.3", "1.16", "1.24", supports, srcESO2026),
				r("0.4", "1.16", "1.24", supports, srcESO2026),
				r("0.5", "1.19", "1.24", supports, srcESO2026),
				r("0.6", "1.19", "1.24", supports, srcESO2026),
				r("0.7", "1.19", "1.26", supports, srcESO2026),
				r("0.8", "1.19", "1.28", supports, srcESO2026),
				r("0.9", "1.19", "1.30", supports, srcESO2026),
				r("0.10", "1.19", "1.31", supports, srcESO2026),
				r("0.11", "1.19", "1.31", supports, srcESO2026),
				r("0.12", "1.19", "1.31", supports, srcESO2026),
				r("0.13", "1.19", "1.31", supports, srcESO2026),
				r("0.14", "1.32", "1.32", tested, srcESO),
				r("0.15", "1.32", "1.32", tested, srcESO),
				r("0.16", "1.32", "1.32", tested, srcESO),
				r("0.17", "1.33", "1.33", tested, srcESO),
				r("0.18", "1.33", "1.33", tested, srcESO),
				r("0.19", "1.33", "1.33", tested, srcESO),
				r("0.20", "1.34", "1.34", tested, srcESO),
				r("1.0", "1.34", "1.34", tested, srcESO),
				r("1.1", "1.34", "1.34", tested, srcESO),
				r("1.2", "1.34", "1.34", tested, srcESO),
				r("1.3", "1.34", "1.34", tested, srcESO),
				r("2.0", "1.34", "1.35", tested, srcESO2026),
				r("2.1", "1.34", "1.35", tested, srcESO2026),
				r("2.2", "1.34", "1.35", tested, srcESO2026),
				r("2.3", "1.34", "1.35", tested, srcESO2026),
				r("2.4", "1.34", "1.35", tested, srcESO2026),
				r("2.5", "1.34", "1.35", tested, srcESO2026),
				r("2.6", "1.34", "1.35", tested, srcESO2026),
				r("2.7", "1.35", "1.35", tested, srcESO2026),
				r("2.8", "1.35", "1.36", tested, srcESO2026),
				r("2.9", "1.36", "1.36", tested, srcESO2026),
			},
			Note:  "External Secrets guarantees only the Kubernetes version its test suite runs, since 0.14; its table states a supported range for the releases before.",
			Older: "External Secrets' support table starts at 0.3",
		},
	}
}

// ingressNginxReleases are the rows of ingress-nginx's README Supported
// Versions table (srcIngress), one per patch release as it lists them
// (pre-releases left out); claim is the rows' word.
func ingressNginxReleases(claim string) []LayerRelease {
	rows := []struct{ release, min, max string }{
		{"1.3.1", "1.20", "1.24"}, {"1.4.0", "1.22", "1.25"}, {"1.5.1", "1.23", "1.25"}, {"1.6.4", "1.23", "1.26"},
		{"1.7.1", "1.24", "1.27"}, {"1.8.4", "1.24", "1.27"},
		{"1.9.0", "1.25", "1.28"}, {"1.9.1", "1.25", "1.28"}, {"1.9.3", "1.25", "1.28"}, {"1.9.4", "1.25", "1.28"},
		{"1.9.5", "1.25", "1.28"}, {"1.9.6", "1.25", "1.29"},
		{"1.10.0", "1.26", "1.29"},
	}
	for p := 1; p <= 6; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.10.%d", p), "1.26", "1.30"})
	}
	for p := 0; p <= 8; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.11.%d", p), "1.26", "1.30"})
	}
	for p := 0; p <= 8; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.12.%d", p), "1.28", "1.32"})
	}
	for p := 0; p <= 9; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.13.%d", p), "1.29", "1.33"})
	}
	for p := 0; p <= 5; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.14.%d", p), "1.30", "1.34"})
	}
	for p := 0; p <= 1; p++ {
		rows = append(rows, struct{ release, min, max string }{fmt.Sprintf("1.15.%d", p), "1.31", "1.35"})
	}
	out := make([]LayerRelease, len(rows))
	for i, x := range rows {
		out[i] = LayerRelease{Release: x.release, Min: x.min, Max: x.max, Claim: claim, Source: srcIngress}
	}
	return out
}

// LookupLayerSupport returns the support entry of the catalog layer named
// layer, and whether the table holds one.
func LookupLayerSupport(layer string) (LayerSupport, bool) {
	for _, s := range LayerSupportTable() {
		if s.Layer == layer {
			return s, true
		}
	}
	return LayerSupport{}, false
}

// ReleaseFromImage returns the release an image reference's tag names
// ("quay.io/cilium/cilium:v1.16.3" → 1.16.3; a digest after the tag is
// ignored: "…/controller:v1.11.1@sha256:…" → 1.11.1), parsed by
// ParseVersion. The reference is parsed by distribution/reference (the
// Docker and OCI reference grammar). It returns an unknown Version, with
// the reason, for a reference that does not parse, a digest-only
// reference, no tag (which pulls "latest"), or a tag that is not a
// version ("latest", "stable", "main").
func ReleaseFromImage(image string) kube.Version {
	unknown := func(reason string) kube.Version { return kube.Version{Raw: image, Reason: reason} }
	ref, err := reference.ParseAnyReference(image)
	if err != nil {
		return unknown(fmt.Sprintf("image %q is not an image reference: %v", image, err))
	}
	tagged, ok := ref.(reference.Tagged)
	if !ok {
		if _, digested := ref.(reference.Digested); digested {
			return unknown(fmt.Sprintf("image %q is named by digest only: its release is not in the reference", image))
		}
		return unknown(fmt.Sprintf("image %q has no tag (it pulls latest): its release is not known", image))
	}
	v := kube.ParseVersion(tagged.Tag())
	if !v.Known {
		return unknown(fmt.Sprintf("image %q: tag %q is not a release version", image, tagged.Tag()))
	}
	return v
}

// LayerSupportStatus is a LayerVerdict's outcome.
type LayerSupportStatus string

// The outcomes of JudgeLayerSupport.
const (
	// LayerSupportUnknown: the layer, its release or its row is not in the
	// table (or the release is unknown): nothing is claimed.
	LayerSupportUnknown LayerSupportStatus = "unknown"
	// LayerSupported: the minor is in the release's range.
	LayerSupported LayerSupportStatus = "supported"
	// LayerMinimumMet: the project publishes a minimum only, and the minor
	// meets it; nothing is claimed beyond.
	LayerMinimumMet LayerSupportStatus = "minimum-met"
	// LayerNotSupported: the minor is outside the release's range.
	LayerNotSupported LayerSupportStatus = "not-supported"
)

// LayerVerdict is the judgement of one layer release against one
// Kubernetes minor.
type LayerVerdict struct {
	Layer  string             `json:"layer"`
	Status LayerSupportStatus `json:"status"`
	// Release is the row's release ("1.19"), Range its "MIN–MAX" ("1.32–1.35",
	// "1.21 or newer"); both empty when unknown.
	Release string `json:"release,omitempty"`
	Range   string `json:"range,omitempty"`
	Source  string `json:"source,omitempty"`
	// Message is the sentence to print: "cilium 1.16.3 is e2e tested with
	// Kubernetes 1.27–1.31, not 1.32; upgrade cilium first".
	Message string `json:"message"`
}

// JudgeLayerSupport judges release (the layer's running release, e.g. from
// ReleaseFromImage) of the catalog layer named layer against Kubernetes
// minor k8s (only its minor counts), by the table's row for that release:
// the row of that exact patch when there is one, else the row of its minor.
// Outside the range: not supported, and when k8s is newer than the range,
// the message says to upgrade the layer first; a minimum-only row says the
// minimum is met and claims nothing more. An unknown release or minor, a
// layer without an entry, or a release without a row is LayerSupportUnknown,
// with the reason: never "supported" by guess.
func JudgeLayerSupport(layer string, release, k8s kube.Version) LayerVerdict {
	v := LayerVerdict{Layer: layer, Status: LayerSupportUnknown}
	switch {
	case !release.Known:
		v.Message = fmt.Sprintf("%s's release is not known (%s): its Kubernetes support is not judged", layer, release.Reason)
		return v
	case !k8s.Known:
		v.Message = fmt.Sprintf("the Kubernetes version is not known (%s): %s %s is not judged against it", k8s.Reason, layer, release.Canonical())
		return v
	}
	entry, ok := LookupLayerSupport(layer)
	if !ok {
		v.Message = fmt.Sprintf("this nestor holds no Kubernetes support table for %s", layer)
		return v
	}
	row, ok := entry.row(release)
	if !ok {
		v.Message = entry.noRow(release, k8s)
		return v
	}
	v.Release, v.Source = row.Release, row.Source
	min := kube.ParseVersion(row.Min)
	minor := k8s.MinorString()
	if row.Max == "" {
		v.Range = row.Min + " or newer"
		if kube.CompareMinor(k8s, min) < 0 {
			v.Status = LayerNotSupported
			v.Message = fmt.Sprintf("%s %s %s Kubernetes %s or newer, not %s", layer, release.Canonical(), row.Claim, row.Min, minor)
			return v
		}
		v.Status = LayerMinimumMet
		v.Message = fmt.Sprintf("%s %s %s Kubernetes %s or newer and publishes no upper bound: %s is not judged beyond that", layer, release.Canonical(), row.Claim, row.Min, minor)
		return v
	}
	max := kube.ParseVersion(row.Max)
	v.Range = row.Min + "–" + row.Max
	if row.Min == row.Max {
		v.Range = row.Min
	}
	note := ""
	if row.Note != "" {
		note = " (" + row.Note + ")"
	}
	switch {
	case kube.CompareMinor(k8s, max) > 0:
		v.Status = LayerNotSupported
		v.Message = fmt.Sprintf("%s %s %s Kubernetes %s, not %s%s; upgrade %s first", layer, release.Canonical(), row.Claim, v.Range, minor, note, layer)
	case kube.CompareMinor(k8s, min) < 0:
		v.Status = LayerNotSupported
		v.Message = fmt.Sprintf("%s %s %s Kubernetes %s, not %s%s", layer, release.Canonical(), row.Claim, v.Range, minor, note)
	default:
		v.Status = LayerSupported
		v.Message = fmt.Sprintf("%s %s %s Kubernetes %s, %s included", layer, release.Canonical(), row.Claim, v.Range, minor)
	}
	return v
}

// noRow says why release has no row in s, naming what is missing: no row
// at all (s.Note), a release older than the first row (what the project's
// pages state of older releases, s.Older), newer than the last (its range
// came out after the table, or was not read), or between two rows (the
// nearest rows, or the patches of its minor the table holds); then that
// its support of k8s is not known.
func (s LayerSupport) noRow(release, k8s kube.Version) string {
	asOf := s.AsOf.Format(time.DateOnly)
	tail := fmt.Sprintf("whether it supports Kubernetes %s is not known here", k8s.MinorString())
	rel := release.Canonical()
	if len(s.Releases) == 0 {
		return fmt.Sprintf("this nestor holds no Kubernetes support rows for %s (%s): %s", s.Layer, s.Note, tail)
	}
	first, last := s.Releases[0], s.Releases[len(s.Releases)-1]
	switch {
	case releaseBefore(release, kube.ParseVersion(first.Release)):
		older := s.Older
		if older == "" {
			older = "no source read states the Kubernetes versions of older releases"
		}
		return fmt.Sprintf("%s %s is older than every release this nestor's support table for %s (as of %s) holds, the oldest %s: %s; %s",
			s.Layer, rel, s.Layer, asOf, first.Release, older, tail)
	case releaseBefore(kube.ParseVersion(last.Release), release):
		return fmt.Sprintf("%s %s is newer than every release this nestor's support table for %s (as of %s) holds, the newest %s: its range is not in the table; %s",
			s.Layer, rel, s.Layer, asOf, last.Release, tail)
	}
	var sameMinor []string
	lower, upper := first.Release, last.Release
	for _, r := range s.Releases {
		rv := kube.ParseVersion(r.Release)
		if kube.CompareMinor(rv, release) == 0 {
			sameMinor = append(sameMinor, r.Release)
		}
		if releaseBefore(rv, release) {
			lower = r.Release
		} else if releaseBefore(release, rv) && upper == last.Release {
			upper = r.Release
		}
	}
	near := fmt.Sprintf("the nearest rows are %s and %s", lower, upper)
	switch {
	case len(sameMinor) > 2:
		near = fmt.Sprintf("of %s it holds %s to %s only", release.MinorString(), sameMinor[0], sameMinor[len(sameMinor)-1])
	case len(sameMinor) > 0:
		near = fmt.Sprintf("of %s it holds %s only", release.MinorString(), kube.JoinAnd(sameMinor))
	}
	return fmt.Sprintf("this nestor's support table for %s (as of %s) has no row for %s (%s): %s", s.Layer, asOf, rel, near, tail)
}

// releaseBefore reports whether release a comes before row release b: by
// version when b names a patch ("1.11.1"), else by minor (a row "1.19"
// stands for all its patches).
func releaseBefore(a, b kube.Version) bool {
	if b.HasPatch {
		return kube.CompareVersions(a, b) < 0
	}
	return kube.CompareMinor(a, b) < 0
}

// row returns the row of release: the row naming that exact patch, else
// the row naming its minor.
func (s LayerSupport) row(release kube.Version) (LayerRelease, bool) {
	var byMinor *LayerRelease
	for i, r := range s.Releases {
		rv := kube.ParseVersion(r.Release)
		if !rv.Known || kube.CompareMinor(rv, release) != 0 {
			continue
		}
		if rv.HasPatch {
			if release.HasPatch && rv.Patch == release.Patch && release.Pre == "" {
				return r, true
			}
			continue
		}
		byMinor = &s.Releases[i]
	}
	if byMinor != nil {
		return *byMinor, true
	}
	return LayerRelease{}, false
}
