package topology

// Observed is what the probes read of a stack's actual state, read now and
// never stored. Every part carries its own Known flag: a part whose probe
// failed (forbidden, timeout, limactl missing…) is Known=false with a Reason,
// and is never taken for "absent" (ARCHITECTURE.md "Truth").
type Observed struct {
	// NoTarget is true when nothing could be resolved to read (a prod stack
	// with no kubeconfig from any rule): the plan is then unverified and
	// assumes an empty cluster.
	NoTarget bool `json:"no_target"`
	// NoTargetReason says why there is no target and how to declare one.
	NoTargetReason string `json:"no_target_reason,omitempty"`

	// NoBenchCluster is true for a lima stack whose bench kubeconfig does
	// not exist: nothing of the bench cluster could be read.
	NoBenchCluster bool `json:"no_bench_cluster,omitempty"`

	// VMs is filled for lima stacks only.
	VMs *VMsObserved `json:"vms,omitempty"`
	// NotVMs are the entries `limactl list` printed that are not Lima
	// instances (see NotVM), in limactl's order: never counted as VMs.
	NotVMs []NotVM `json:"not_vms,omitempty"`
	// ServerVersion is the API server's gitVersion ("v1.37.2").
	ServerVersion Fact[string]      `json:"server_version"`
	Nodes         Fact[[]NodeState] `json:"nodes"`
	// Layers has one entry per declared layer, in declaration order, then the
	// catalog layers found on the cluster but not declared.
	Layers []LayerState `json:"layers"`
	// Storage is the cluster's default StorageClass and the backend it means.
	Storage Fact[StorageState] `json:"storage"`
	// Versions is the API server's version and the kubelets grouped by
	// version, derived from ServerVersion and Nodes (no request of its own):
	// set by Observed.DeriveVersions, which the caller runs once after the
	// probe; unknown, with the reason, when the server version is.
	Versions Fact[VersionsState] `json:"versions"`
	// Kapsule is what the provider's API said (kapsule stacks only).
	Kapsule *KapsuleObserved `json:"kapsule,omitempty"`
	// ProviderObjects are a managed provider's objects inside the cluster
	// (its namespace's objects, their marks and writes), read when the
	// stack's kind says what marks them (probes.ProviderMarker) and the
	// cluster's own API was read, then judged (ProviderObjects.Derive); nil
	// otherwise.
	ProviderObjects *ProviderObjects `json:"provider_objects,omitempty"`
	// InClusterUnread says why the cluster's own API (its nodes, layers
	// and StorageClasses) was not read while the stack itself was: a
	// managed cluster read through its provider's API alone because it
	// declares no kubeconfig. "" when it was read, when nothing at all was
	// (NoTarget), and when a declared kubeconfig could not be used (then
	// the in-cluster part is unknown as every unread part is). An unread
	// part is then unknown only where something declared depends on it (a
	// layer, backend:).
	InClusterUnread string `json:"in_cluster_unread,omitempty"`
	// UndeclaredUnread says why the search for the catalog layers the
	// cluster runs but the topology does not declare is incomplete (the
	// CRD or StorageClass list, or every workload list, could not be
	// read): the undeclared layers listed in Layers may not be all. ""
	// when the search read everything it needed.
	UndeclaredUnread string `json:"undeclared_unread,omitempty"`
	// UndeclaredUnreadCode is UndeclaredUnread's ReasonCode.
	UndeclaredUnreadCode ReasonCode `json:"undeclared_unread_code,omitempty"`
}

// NothingRead reports whether o holds no fact read from the stack's
// target: no target at all (NoTarget), or every read failed — the API
// server, the nodes, the StorageClasses, the layers, the VMs and the
// provider's objects all unknown. A report on such a reading judges
// nothing: no count, no gauge and no passing test says otherwise.
func (o *Observed) NothingRead() bool {
	if o == nil || o.NoTarget {
		return true
	}
	if o.ServerVersion.Known || o.Nodes.Known || o.Versions.Known || o.Storage.Known || (o.VMs != nil && o.VMs.Known) {
		return false
	}
	for _, l := range o.Layers {
		if l.Health != Unknown {
			return false
		}
	}
	if k := o.Kapsule; k != nil {
		if k.Cluster.Known || k.Pools.Known || k.Nodes.Known || k.Available.Known || k.Versions.Known || k.ACL.Known || k.ACLRules.Known ||
			k.Types.Known || k.AvailableTypes.Known || k.Etcd.Known {
			return false
		}
	}
	return true
}

// Fact is one probed value: Known with Value, or unknown with the Reason
// ("forbidden: …", "timeout after 10s", "no bench kubeconfig at …").
type Fact[T any] struct {
	Known  bool   `json:"known"`
	Reason string `json:"reason,omitempty"`
	// Code is why, from the closed set of ReasonCode ("" when Known).
	Code  ReasonCode `json:"reason_code,omitempty"`
	Value T          `json:"value"`
}

// KnownFact returns a known Fact holding v.
func KnownFact[T any](v T) Fact[T] { return Fact[T]{Known: true, Value: v} }

// UnknownFact returns an unknown Fact with why it was not read (its code
// and words).
func UnknownFact[T any](why Why) Fact[T] { return Fact[T]{Reason: why.Text, Code: why.Code} }

// Why is why f was not read: its code (ReasonNotRead when it carries
// none) and its words (ReasonOr).
func (f Fact[T]) Why() Why { return Because(f.Code, f.Reason).orNotRead() }

// VMsObserved is the list of Lima instances, as limactl reported them.
type VMsObserved = Fact[[]VM]

// VM is one Lima instance.
type VM struct {
	Name string `json:"name"`
	// Status is limactl's: Running, Stopped or Broken ("" when limactl
	// printed none for an instance that has a folder).
	Status string `json:"status"`
	Dir    string `json:"dir,omitempty"`
	VMType string `json:"vm_type,omitempty"`
	CPUs   int    `json:"cpus,omitempty"`
	// Memory and Disk are in bytes.
	Memory int64 `json:"memory,omitempty"`
	Disk   int64 `json:"disk,omitempty"`
	// Errors are limactl's errors for the instance (its `errors` field,
	// lima-vm/lima store.Instance.Errors): why it is Broken.
	Errors []string `json:"errors,omitempty"`
}

// NotVM is an entry of `limactl list --json` that is not a Lima instance:
// limactl lists every entry of its home folder (~/.lima), and one that is
// not an instance folder — a stray file such as docker.yaml — comes out with
// no status, no dir and an error ("open …/docker.yaml/lima.yaml: not a
// directory"). It is reported apart from the VMs, never as a VM.
type NotVM struct {
	Name string `json:"name"`
	// Errors are limactl's errors for the entry.
	Errors []string `json:"errors,omitempty"`
}

// VM statuses as limactl prints them.
const (
	VMRunning = "Running"
	VMStopped = "Stopped"
	VMBroken  = "Broken"
)

// NodeState is one registered Node.
type NodeState struct {
	Name string `json:"name"`
	// Ready is true when the node's Ready condition is True.
	Ready bool `json:"ready"`
	// ReadyStatus is the status of the node's Ready condition: "True",
	// "False" or "Unknown" (the node controller sets Unknown, reason
	// NodeStatusUnknown, when the kubelet stopped posting status; Kubernetes
	// docs, Nodes: "Node status"). It is "" when the node has no Ready
	// condition, or when its condition could not be read (ReadyReason then
	// says why, and ReadyMessage is empty).
	ReadyStatus string `json:"ready_status"`
	// ReadyReason and ReadyMessage are the Ready condition's reason and
	// message as the cluster gives them ("NodeStatusUnknown", "Kubelet
	// stopped posting node status."). They are read for the nodes that are
	// not Ready only, so they are empty for a Ready node.
	ReadyReason  string `json:"ready_reason,omitempty"`
	ReadyMessage string `json:"ready_message,omitempty"`
	// Unschedulable is spec.unschedulable: the node is cordoned (kubectl
	// shows it as SchedulingDisabled).
	Unschedulable bool `json:"unschedulable"`
	// Roles are the node's roles as the API server's node printer derives
	// them from its labels (see IsControlPlaneRole).
	Roles          []string `json:"roles"`
	KubeletVersion string   `json:"kubelet_version,omitempty"`
	InternalIP     string   `json:"internal_ip,omitempty"`
}

// The status values of a node condition (k8s.io/api core/v1
// ConditionStatus).
const (
	ConditionTrue    = "True"
	ConditionFalse   = "False"
	ConditionUnknown = "Unknown"
)

// Health is the state of one layer on the cluster.
type Health string

// Layer and object healths. Unknown always comes with a reason.
const (
	Healthy  Health = "healthy"
	Degraded Health = "degraded"
	Absent   Health = "absent"
	Unknown  Health = "unknown"
	// Suspended: its operator was told to stop acting on it (Flux's
	// spec.suspend, CloudNativePG's cnpg.io/reconciliationLoop: disabled,
	// a paused Prometheus, a CephCluster whose cleanup policy is
	// confirmed): what its status says may be frozen, so it is not judged
	// healthy, and nothing would repair it until it is resumed. A layer
	// suspended is in the plan's unknowns, with why; never a repair.
	Suspended Health = "suspended"
	// Progressing is an object's only (ObjectReport.Health): not yet what
	// it should be, and its operator is at work on it (a first issuance,
	// a sync running, a volume attaching). A layer whose only trouble is
	// progressing objects stays Degraded with StatusVerdict.Progressing.
	Progressing Health = "progressing"
)

// LayerHealths are the healths a LayerState may have, in the order the
// machine outputs list them.
var LayerHealths = []Health{Healthy, Degraded, Absent, Unknown, Suspended}

// LayerState is the observed state of one layer.
type LayerState struct {
	Name     string `json:"name"`
	Declared bool   `json:"declared"`
	Health   Health `json:"health"`
	// Reason says, in a few words, why a layer is degraded or unknown, or
	// what showed it healthy ("Ceph HEALTH_OK, 8 workloads available").
	Reason string `json:"reason,omitempty"`
	// Code is why an Unknown layer is unknown, from the closed set of
	// ReasonCode: the code of the first part that kept it unknown.
	Code ReasonCode `json:"reason_code,omitempty"`
	// Detail is everything that was seen of it, one item each: every
	// workload of the layer (its named workloads and its members, available
	// or not), CRD group and StorageClass (for --detailed and JSON).
	Detail []string `json:"detail,omitempty"`
	// Available counts the workloads JudgeWorkloads saw available (the short
	// reason of a layer judged with its status says it).
	Available int `json:"-"`
	// Status is what the layer's own status resources said: each
	// resource, read or not, and what each of its objects says; nil for a
	// layer that declares none.
	Status *StatusVerdict `json:"status,omitempty"`
}

// StorageState is the cluster's default StorageClass: the one Kubernetes
// gives a PersistentVolumeClaim that names no class (see DefaultStorage).
// Class is "" when the cluster has none that works; Backend is the catalog
// layer its provisioner belongs to ("" when the provisioner is not in the
// catalog).
type StorageState struct {
	Class       string `json:"class,omitempty"`
	Provisioner string `json:"provisioner,omitempty"`
	Backend     string `json:"backend,omitempty"`
	// OtherDefaults names the other StorageClasses that also carry an
	// is-default-class annotation, when more than one does, in the order
	// Kubernetes ranks them (newest first, then by name).
	OtherDefaults []string `json:"other_defaults,omitempty"`
	// Warning says, when several StorageClasses are marked default, which
	// ones, which of them Kubernetes uses and by which rule ("" otherwise).
	Warning string `json:"warning,omitempty"`
}
