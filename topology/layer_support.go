package topology

import (
	"fmt"
	"time"

	"github.com/distribution/reference"
	"nestor.dev/nestor/kube"
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

// Sources of the layer support table, kept with the code.
const (
	srcCilium118 = "https://raw.githubusercontent.com/cilium/cilium/v1.18.14/Documentation/network/kubernetes/compatibility.rst"
	srcCilium119 = "cilium/cilium v1.19.3 Documentation/network/kubernetes/compatibility.rst, read at https://contextqmd.com/libraries/cilium/versions/1.19.3/pages/Documentation/network/kubernetes/compatibility"
	srcRook      = "https://rook.io/docs/rook/latest/Getting-Started/maintenance-and-support/ (Supported Versions: the Kubernetes versions each Rook minor supported at its release)"
	srcCNPG      = "https://github.com/cloudnative-pg/cloudnative-pg/blob/01d612bf3e1daf51af15928d8e5eaa26a4275849/docs/src/supported_releases.md (Support status; Old releases)"
	srcArgoCD    = "https://github.com/argoproj/argo-cd/blob/030b4f982b2a0f6a97cb3d3f3616c14df0f58c48/docs/operator-manual/tested-kubernetes-versions.md"
	srcCertMgr   = "https://github.com/cert-manager/website/blob/f97947d228213c30791637d7725b00d6a0b770b7/content/docs/releases/README.md (Supported Releases; Old cert-manager releases)"
	srcESO       = "https://github.com/external-secrets/external-secrets/blob/0060da0b62ef6725f88171a6a16c52ff6dd941ae/docs/introduction/stability-support.md"
	srcIngress   = "https://github.com/kubernetes/ingress-nginx/pull/11650/files (README.md Supported Versions table)"
	srcFlux21    = "fluxcd/flux2 v2.1.0 release notes, Kubernetes compatibility, as quoted in https://github.com/CowDogMoo/Walls-of-Excellence/pull/226"
	srcLonghorn  = "https://documentation.suse.com/external-tree/en-us/cloudnative/storage/1.7.0/en/installation-setup/requirements.html (Longhorn 1.7.0 requirements)"
)

// LayerSupportTable returns the layer support table as of its AsOf day
// (2026-11-30), one entry per catalog layer it covers, in catalog order.
// Only what was read in the sources named on each row is recorded: a
// release or minor missing from a row is unknown, never unsupported.
func LayerSupportTable() []LayerSupport {
	r := func(release, min, max, claim, src string) LayerRelease {
		return LayerRelease{Release: release, Min: min, Max: max, Claim: claim, Source: src}
	}
	withNote := func(lr LayerRelease, note string) LayerRelease { lr.Note = note; return lr }
	const cnpgSupports = "supports"
	return []LayerSupport{
		{
			Layer: "cilium", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDaemonSet, Name: "cilium", Container: "cilium-agent", ImageIsRelease: true,
				Source: "cilium/cilium install/kubernetes/cilium/templates/cilium-agent/daemonset.yaml (image quay.io/cilium/cilium:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.18", "1.30", "1.33", "is e2e tested with", srcCilium118),
				r("1.19", "1.32", "1.35", "is e2e tested with", srcCilium119),
			},
			Note: "Cilium: versions listed are e2e tested and guaranteed; others depend on Kubernetes' own compatibility.",
		},
		{
			Layer: "rook-ceph", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "rook-ceph-operator", Container: "rook-ceph-operator", ImageIsRelease: true,
				Source: "rook/rook deploy/examples/operator.yaml (image docker.io/rook/ceph:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.14", "1.25", "1.30", "supports", srcRook),
				r("1.15", "1.26", "1.31", "supports", srcRook),
				r("1.16", "1.27", "1.32", "supports", srcRook),
				r("1.17", "1.28", "1.33", "supports", srcRook),
				r("1.18", "1.29", "1.34", "supports", srcRook),
				r("1.19", "1.30", "1.35", "supports", srcRook),
				r("1.20", "1.31", "1.36", "supports", srcRook),
			},
			Note: "Rook: the range each minor supported at its release; patch releases occasionally extend it.",
		},
		{
			Layer: "cnpg", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "cnpg-controller-manager", Container: "manager", ImageIsRelease: true,
				Source: "cloudnative-pg/cloudnative-pg config/manager/manager.yaml (container manager, image ghcr.io/cloudnative-pg/cloudnative-pg:X.Y.Z, no v)"},
			Releases: []LayerRelease{
				r("1.24", "1.28", "1.31", "is compatible with", srcCNPG),
				withNote(r("1.25", "1.29", "1.32", cnpgSupports, srcCNPG), "1.33 tested, but not supported"),
				withNote(r("1.26", "1.30", "1.33", cnpgSupports, srcCNPG), "1.29 tested, but not supported"),
				withNote(r("1.27", "1.31", "1.33", cnpgSupports, srcCNPG), "1.29 and 1.30 tested, but not supported"),
			},
		},
		{
			Layer: "kube-prometheus-stack", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "*kube-prometheus*-operator", Container: "kube-prometheus-stack",
				ImageNote: "the operator's image (quay.io/prometheus-operator/prometheus-operator:vX) is Prometheus Operator's release, not the chart's",
				Source:    "prometheus-community/helm-charts charts/kube-prometheus-stack/templates/prometheus-operator/deployment.yaml"},
			Note: "No per-release Kubernetes table was found: Prometheus Operator states that the Kubernetes versions it supports are those its client-go supports (prometheus-operator Documentation/compatibility).",
		},
		{
			Layer: "argocd", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindStatefulSet, Name: "argocd-application-controller", Container: "argocd-application-controller", ImageIsRelease: true,
				Source: "argoproj/argo-cd manifests/install.yaml (image quay.io/argoproj/argocd:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("3.0", "1.29", "1.32", "is tested with", srcArgoCD),
				r("3.1", "1.31", "1.34", "is tested with", srcArgoCD),
				r("3.2", "1.31", "1.34", "is tested with", srcArgoCD),
			},
		},
		{
			Layer: "flux", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "source-controller", Container: "manager",
				ImageNote: "each Flux controller's image carries that controller's own version (source-controller v1.7.4 in Flux v2.7.5), not Flux's",
				Source:    "fluxcd/flux2 manifests/bases/source-controller"},
			Releases: []LayerRelease{
				r("2.1", "1.25", "1.28", "is compatible with", srcFlux21),
			},
			Note: "Flux supports the Kubernetes minors supported upstream and runs its end-to-end tests on the latest minor (fluxcd.io/flux/releases, Kubernetes supported versions); each minor's own range is in its release notes.",
		},
		{
			Layer: "cert-manager", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "cert-manager", Container: "cert-manager-controller", ImageIsRelease: true,
				Source: "cert-manager/cert-manager deploy/charts/cert-manager/templates/deployment.yaml (image quay.io/jetstack/cert-manager-controller:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.12", "1.22", "1.32", "is compatible with", srcCertMgr),
				r("1.13", "1.21", "1.27", "is compatible with", srcCertMgr),
				r("1.14", "1.24", "1.31", "is compatible with", srcCertMgr),
				r("1.15", "1.25", "1.32", "is compatible with", srcCertMgr),
				withNote(r("1.16", "1.25", "1.32", "supports", srcCertMgr), "tested with 1.27 to 1.31"),
				withNote(r("1.17", "1.29", "1.32", "supports", srcCertMgr), "tested with 1.29 to 1.32"),
				withNote(r("1.18", "1.29", "1.33", "supports", srcCertMgr), "tested with 1.30 to 1.33 (listed as upcoming on the page read)"),
			},
		},
		{
			Layer: "longhorn", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDaemonSet, Name: "longhorn-manager", Container: "longhorn-manager", ImageIsRelease: true,
				Source: "longhorn/longhorn deploy/longhorn.yaml (image longhornio/longhorn-manager:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("1.7", "1.21", "", "requires", srcLonghorn),
			},
			Note: "Longhorn publishes a minimum Kubernetes version per release, no upper bound.",
		},
		{
			Layer: "metallb", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "controller", Container: "controller", ImageIsRelease: true,
				Source: "metallb/metallb config/manifests/metallb-native.yaml (image quay.io/metallb/controller:vX.Y.Z)"},
			Note: "No per-release Kubernetes table was read for MetalLB.",
		},
		{
			Layer: "ingress-nginx", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "ingress-nginx-controller", Container: "controller", ImageIsRelease: true,
				Source: "kubernetes/ingress-nginx deploy/static/provider/cloud/deploy.yaml (image registry.k8s.io/ingress-nginx/controller:vX.Y.Z@sha256:…)"},
			Releases: []LayerRelease{
				r("1.10.1", "1.26", "1.30", "is e2e tested with", srcIngress),
				r("1.10.2", "1.26", "1.30", "is e2e tested with", srcIngress),
				r("1.11.0", "1.26", "1.30", "is e2e tested with", srcIngress),
				r("1.11.1", "1.26", "1.30", "is e2e tested with", srcIngress),
			},
			Note: "ingress-nginx lists its supported Kubernetes minors per patch release.",
		},
		{
			Layer: "external-secrets", AsOf: layerSupportAsOf,
			Main: MainWorkload{Kind: KindDeployment, Name: "external-secrets", Container: "external-secrets", ImageIsRelease: true,
				Source: "external-secrets/external-secrets deploy/charts/external-secrets/templates/deployment.yaml (image oci.external-secrets.io/external-secrets/external-secrets:vX.Y.Z)"},
			Releases: []LayerRelease{
				r("0.14", "1.32", "1.32", "is tested with", srcESO),
				r("0.15", "1.32", "1.32", "is tested with", srcESO),
				r("0.16", "1.32", "1.32", "is tested with", srcESO),
				r("0.17", "1.33", "1.33", "is tested with", srcESO),
				r("0.18", "1.33", "1.33", "is tested with", srcESO),
				r("0.19", "1.33", "1.33", "is tested with", srcESO),
				r("0.20", "1.34", "1.34", "is tested with", srcESO),
				r("1.0", "1.34", "1.34", "is tested with", srcESO),
				r("1.1", "1.34", "1.34", "is tested with", srcESO),
				r("1.2", "1.34", "1.34", "is tested with", srcESO),
				r("1.3", "1.34", "1.34", "is tested with", srcESO),
				r("2.0", "1.34", "1.34", "is tested with", srcESO),
			},
			Note: "External Secrets guarantees only the Kubernetes version its test suite runs, since 0.14.",
		},
	}
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
		v.Message = fmt.Sprintf("this nestor's support table for %s (as of %s) has no row for %s: whether it supports Kubernetes %s is not known here",
			layer, entry.AsOf.Format(time.DateOnly), release.Canonical(), k8s.MinorString())
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
