// Package topology is nestor's model of a stack: the topology file (format
// version 1, see ARCHITECTURE.md "Topology file"), its strict validation,
// the phases' names, the layer catalog, and the types of what a topology
// declares (desired), what the probes read (observed) and the plan that
// closes the gap between them (Plan, Step, Finding: package plan builds
// it). Of nestor's packages it imports only kube, and it never prints,
// reads the environment or touches the network: every input is passed in.
package topology

import (
	"slices"
)

// TargetKind says what kind of machines a stack runs on, and so which prober
// may read it (ARCHITECTURE.md "The target pipeline": a probe never looks at a target of another kind).
type TargetKind string

const (
	// TargetLima is a local test bench of Lima VMs created by nestor.
	TargetLima TargetKind = "lima"
	// TargetProd is an existing cluster on machines provisioned upstream.
	TargetProd TargetKind = "prod"
)

// builtinKinds are the target kinds whose grammar this package knows
// (TargetKapsule is in kapsule.go); registered holds the kinds added by
// RegisterKind.
var (
	builtinKinds = []TargetKind{TargetLima, TargetProd, TargetKapsule}
	registered   []TargetKind
)

// Kinds returns every target kind a topology may declare, the built-in ones
// first, then those added by RegisterKind, in order.
func Kinds() []TargetKind {
	return append(append([]TargetKind{}, builtinKinds...), registered...)
}

// RegisterKind adds k to the target kinds a topology may declare, with the
// grammar of an existing cluster of declared nodes (prod's: nodes:,
// kubeconfig:, endpoint:, inventory:; no lima:, scaleway: or pools:). It is
// for a kind whose topology needs no block of its own (a test's kind); a
// kind with a block of its own has its grammar here. Registering a kind
// twice, or a built-in one, changes nothing. It returns the function that
// takes k out again (a test's cleanup). Not safe for concurrent use with
// Parse: call it before loading any topology.
func RegisterKind(k TargetKind) (unregister func()) {
	if slices.Contains(Kinds(), k) {
		return func() {}
	}
	registered = append(registered, k)
	return func() {
		registered = slices.DeleteFunc(registered, func(r TargetKind) bool { return r == k })
	}
}

// nodeClusterGrammar reports whether k's topology has prod's grammar: prod,
// and every registered kind.
func nodeClusterGrammar(k TargetKind) bool {
	return k == TargetProd || slices.Contains(registered, k)
}

// Topology is one stack as declared in its file. Paths are kept as written;
// use ResolvePath to expand them.
type Topology struct {
	// Path is the path of the file the topology was loaded from, as the
	// caller of Parse gave it: absolute when loaded by the stacks folder
	// (stacks.Load, stacks.LoadFile), which relative paths (kubeconfig:,
	// inventories) are resolved against.
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
	// Positions are where the keys a plan item can concern were written
	// (see PositionOf); nil for a topology not parsed from a file.
	Positions map[string]Position `json:"-"`
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

func kindNames() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, string(k))
	}
	return out
}
