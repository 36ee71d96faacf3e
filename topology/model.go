// Package topology is nestor's model of a stack: the topology file (format
// version 1, see DESIGN.md "Topology file"), its strict validation, the phase
// sequence of each target kind, the layer catalog, and the plan that closes
// the gap between what a topology declares (desired) and what the probes read
// (observed). It imports nothing of nestor's and never prints, reads the
// environment or touches the network: every input is passed in.
package topology

// TargetKind says what kind of machines a stack runs on, and so which prober
// may read it (DESIGN.md: a probe never looks at a target of another kind).
type TargetKind string

const (
	// TargetLima is a local test bench of Lima VMs created by nestor.
	TargetLima TargetKind = "lima"
	// TargetProd is an existing cluster on machines provisioned upstream.
	TargetProd TargetKind = "prod"
)

// Topology is one stack as declared in its file. Paths are kept as written;
// use ResolvePath to expand them.
type Topology struct {
	// Path is the absolute path of the file the topology was loaded from.
	Path string `json:"path"`

	Name       string     `json:"name"`
	TargetKind TargetKind `json:"target_kind"`
	// Kubeconfig is the `kubeconfig:` value as written ("" when absent).
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Endpoint is the API server URL this stack must be ("" when absent).
	Endpoint   string     `json:"endpoint,omitempty"`
	Kubernetes Kubernetes `json:"kubernetes"`
	// Inventory is an Ansible inventory path (YAML or INI), as written.
	Inventory string     `json:"inventory,omitempty"`
	Nodes     []Node     `json:"nodes,omitempty"`
	Backend   string     `json:"backend,omitempty"`
	Layers    []LayerRef `json:"layers"`
	Lima      *Lima      `json:"lima,omitempty"`
	// Scaleway and Pools are a kapsule stack's (topology/kapsule.go).
	Scaleway *Scaleway `json:"scaleway,omitempty"`
	Pools    []Pool    `json:"pools,omitempty"`
	// Warnings are load warnings ("FILE:LINE:COL: FIELD: MSG (FIX)"): the
	// file is valid, but something in it is likely not what was meant.
	Warnings []string `json:"warnings,omitempty"`
}

// Kubernetes holds the desired Kubernetes version.
type Kubernetes struct {
	// Version is a minor ("1.36") or a full version ("1.36.2"), "" when not declared.
	Version string `json:"version,omitempty"`
	// AutoUpgrade is the desired auto-upgrade setting of a managed
	// cluster (kapsule only; nil when not declared).
	AutoUpgrade *bool `json:"auto_upgrade,omitempty"`
}

// Node is a declared machine of the stack.
type Node struct {
	Name string `json:"name"`
	// Role is "control-plane" or "worker".
	Role    string `json:"role"`
	Address string `json:"address,omitempty"`
	// User, Port and Key are optional SSH settings used by discover --cp when
	// the inventory does not give them.
	User string `json:"user,omitempty"`
	Port int    `json:"port,omitempty"`
	Key  string `json:"key,omitempty"`
}

// Node roles.
const (
	RoleControlPlane = "control-plane"
	RoleWorker       = "worker"
)

// LayerRef is one entry of `layers:`: a catalog layer by name, or a custom
// layer that says how to detect it.
type LayerRef struct {
	Name   string  `json:"name"`
	Detect *Detect `json:"detect,omitempty"`
}

// Detect tells how a custom layer is recognised on a live cluster. Workload
// references are "namespace/name". At least one field is set.
type Detect struct {
	Deployment  string `json:"deployment,omitempty"`
	DaemonSet   string `json:"daemonset,omitempty"`
	StatefulSet string `json:"statefulset,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	CRDGroup    string `json:"crd_group,omitempty"`
	// Resource names one object whose status decides the layer's health
	// (judged by kstatus; see ResourceRef).
	Resource *ResourceRef `json:"resource,omitempty"`
}

// Lima holds the bench settings of a lima stack.
type Lima struct {
	Template string `json:"template,omitempty"`
	CPUs     int    `json:"cpus,omitempty"`
	Memory   string `json:"memory,omitempty"`
	Disk     string `json:"disk,omitempty"`
	// Kubeconfig is the bench's generated kubeconfig, as written; "" means the
	// default .work/<stack>/kubeconfig beside the stacks folder.
	Kubeconfig string `json:"kubeconfig,omitempty"`
}
