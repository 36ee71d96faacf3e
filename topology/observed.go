package topology

// Observed is what the probes read of a stack's actual state, read now and
// never stored. Every part carries its own Known flag: a part whose probe
// failed (forbidden, timeout, limactl missing…) is Known=false with a Reason,
// and is never taken for "absent" (DESIGN.md, preview).
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
}

// Fact is one probed value: Known with Value, or unknown with the Reason
// ("forbidden: …", "timeout after 10s", "no bench kubeconfig at …").
type Fact[T any] struct {
	Known  bool   `json:"known"`
	Reason string `json:"reason,omitempty"`
	Value  T      `json:"value"`
}

// KnownFact returns a known Fact holding v.
func KnownFact[T any](v T) Fact[T] { return Fact[T]{Known: true, Value: v} }

// UnknownFact returns an unknown Fact with its reason.
func UnknownFact[T any](reason string) Fact[T] { return Fact[T]{Reason: reason} }

// VMsObserved is the list of Lima instances, as limactl reported them.
type VMsObserved = Fact[[]VM]

// VM is one Lima instance.
type VM struct {
	Name string `json:"name"`
	// Status is limactl's: Running, Stopped or Broken.
	Status string `json:"status"`
	Dir    string `json:"dir,omitempty"`
	VMType string `json:"vm_type,omitempty"`
	CPUs   int    `json:"cpus,omitempty"`
	// Memory and Disk are in bytes.
	Memory int64 `json:"memory,omitempty"`
	Disk   int64 `json:"disk,omitempty"`
}

// VM statuses as limactl prints them.
const (
	VMRunning = "Running"
	VMStopped = "Stopped"
	VMBroken  = "Broken"
)

// NodeState is one registered Node.
type NodeState struct {
	Name           string   `json:"name"`
	Ready          bool     `json:"ready"`
	Roles          []string `json:"roles"`
	KubeletVersion string   `json:"kubelet_version,omitempty"`
	InternalIP     string   `json:"internal_ip,omitempty"`
}

// Health is the state of one layer on the cluster.
type Health string

// Layer healths. Unknown always comes with a reason.
const (
	Healthy  Health = "healthy"
	Degraded Health = "degraded"
	Absent   Health = "absent"
	Unknown  Health = "unknown"
)

// LayerState is the observed state of one layer.
type LayerState struct {
	Name     string `json:"name"`
	Declared bool   `json:"declared"`
	Health   Health `json:"health"`
	// Reason says why a layer is degraded or unknown, or what showed it present.
	Reason string `json:"reason,omitempty"`
}

// StorageState is the cluster's default StorageClass. Class is "" when the
// cluster has none; Backend is the catalog layer its provisioner belongs to
// ("" when the provisioner is not in the catalog).
type StorageState struct {
	Class       string `json:"class,omitempty"`
	Provisioner string `json:"provisioner,omitempty"`
	Backend     string `json:"backend,omitempty"`
	// OtherDefaults names the other StorageClasses that also carry the
	// is-default-class annotation (sorted), when more than one does; Class is
	// then the first of them alphabetically (see DefaultStorage).
	OtherDefaults []string `json:"other_defaults,omitempty"`
}
