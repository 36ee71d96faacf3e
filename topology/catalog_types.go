package topology

import (
	"path"
	"slices"
	"strings"
	"time"
)

// LayerDef says how a layer is recognised on a live cluster and which
// workloads make it healthy. The catalog (Catalog) holds one per known layer;
// a custom layer's `detect:` becomes one too (LayerDefFor).
type LayerDef struct {
	Name string `json:"name"`
	// Category groups layers: cni, storage, database, monitoring, gitops,
	// ingress, loadbalancer, certificates, secrets, metrics, registry, custom.
	Category string `json:"category"`
	// Source names the upstream manifest or chart the signature was taken from.
	Source string `json:"source"`
	// CRDGroups are API groups of CustomResourceDefinitions the layer installs.
	CRDGroups []string `json:"crd_groups,omitempty"`
	// Provisioners are StorageClass provisioners of a storage layer.
	Provisioners []string `json:"provisioners,omitempty"`
	// Namespaces are where the layer's workloads live, in order of likelihood.
	Namespaces []string `json:"namespaces,omitempty"`
	// Workloads must all be found and available for the layer to be
	// healthy; they, its CRD groups and its provisioners are how the layer
	// is detected.
	Workloads []Workload `json:"workloads,omitempty"`
	// Members says which other workloads belong to the layer once it is
	// detected: each is judged too, so a layer is all of its workloads,
	// not a short list of names.
	Members Members `json:"members,omitempty"`
	// Status are the resources whose status says whether the layer does
	// its job (JudgeStatus, JudgeLayer); empty when its workloads
	// alone decide.
	Status []StatusResource `json:"status,omitempty"`
}

// Members are the workloads that belong to a layer beyond its named
// Workloads: every workload of the namespaces the layer owns (its
// manifests create them and nothing else lives there by default), and,
// in any of its Namespaces, every workload whose app.kubernetes.io/part-of
// label (Kubernetes' recommended labels, which the layers' charts set) is
// one of PartOf.
type Members struct {
	Namespaces []string `json:"namespaces,omitempty"`
	PartOf     []string `json:"part_of,omitempty"`
}

// IsMember reports whether ws belongs to the layer def by its Members.
func (def LayerDef) IsMember(ws WorkloadState) bool {
	if slices.Contains(def.Members.Namespaces, ws.Namespace) {
		return true
	}
	return ws.PartOf != "" && slices.Contains(def.Members.PartOf, ws.PartOf) && slices.Contains(def.Namespaces, ws.Namespace)
}

// Workload names a workload of a layer. Name may be a path.Match pattern
// ("*-kube-prometheus-operator" for a Helm release prefix).
type Workload struct {
	// Kind is Deployment, DaemonSet or StatefulSet.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// AltNames are other names (patterns too) the same workload goes by in
	// another install method, e.g. MetalLB's manifest "controller" and its
	// Helm chart's "<release>-metallb-controller". The workload is found when
	// Name or any AltNames matches.
	AltNames []string `json:"alt_names,omitempty"`
	// Namespace, when set, overrides the LayerDef's Namespaces for this workload.
	Namespace string `json:"namespace,omitempty"`
}

// Workload kinds.
const (
	KindDeployment  = "Deployment"
	KindDaemonSet   = "DaemonSet"
	KindStatefulSet = "StatefulSet"
)

// ClusterFacts is what the kube prober read that layer detection needs. Each
// part is a Fact: detection that needs an unknown part says unknown.
type ClusterFacts struct {
	Namespaces     Fact[[]string]       `json:"namespaces"`
	CRDGroups      Fact[[]string]       `json:"crd_groups"`
	StorageClasses Fact[[]StorageClass] `json:"storage_classes"`
	// Workloads holds the Deployments, DaemonSets and StatefulSets of the
	// namespaces in WorkloadNamespaces. It is known when at least one
	// namespace could be read; unknown when every list failed.
	Workloads Fact[[]WorkloadState] `json:"workloads"`
	// WorkloadNamespaces are the namespaces whose workloads were all read.
	WorkloadNamespaces []string `json:"workload_namespaces"`
	// WorkloadErrors maps each namespace whose workloads were looked for
	// but could not be read (not in WorkloadNamespaces) to the reason,
	// e.g. "deployments in argocd: forbidden (user bob cannot list
	// deployments.apps in namespace argocd)". JudgeWorkloads gives it as the
	// reason a workload there is unknown.
	WorkloadErrors map[string]Why `json:"workload_errors,omitempty"`
	// Status is what the layers' own status resources said (the declared
	// layers' and the undeclared ones found): read with the other lists.
	Status StatusFacts `json:"status"`
}

// StorageClass is one StorageClass; Default is an is-default-class
// annotation set to "true" (the GA or the beta one), Created its
// metadata.creationTimestamp (zero when the API server gave none), which
// decides between several defaults (DefaultStorage).
type StorageClass struct {
	Name        string    `json:"name"`
	Provisioner string    `json:"provisioner"`
	Default     bool      `json:"default"`
	Created     time.Time `json:"created,omitzero"`
}

// WorkloadState is one workload and its availability: Desired is
// spec.replicas (DaemonSet: desiredNumberScheduled), Ready is
// availableReplicas (DaemonSet: numberAvailable).
type WorkloadState struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Desired   int32  `json:"desired"`
	Ready     int32  `json:"ready"`
	// PartOf is its app.kubernetes.io/part-of label ("" when it has none):
	// which layer it belongs to (LayerDef.IsMember).
	PartOf string `json:"part_of,omitempty"`
	// Containers are the pod template's containers (spec.template.spec.containers,
	// init containers left out), with the image each sets: the upgrade
	// judgement reads a layer's release from its main workload's image.
	Containers []ContainerImage `json:"containers,omitempty"`
}

// ContainerImage is one container of a workload's pod template and the
// image reference it sets, as written there (a tag, a digest, or both).
type ContainerImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// NameMatches reports whether name matches a Workload's Name or AltNames
// pattern: path.Match, with a plain comparison for literal names.
func NameMatches(pattern, name string) bool {
	if !strings.ContainsAny(pattern, `*?[\`) {
		return pattern == name
	}
	ok, _ := path.Match(pattern, name)
	return ok
}
