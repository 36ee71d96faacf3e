package topology

import "strings"

// SubjectKind is what a claim (a step, a finding, an unknown part, a
// waiting object) is about. The set is closed: every view and format
// switches on it, never on a claim's words.
type SubjectKind string

// The kinds of subject.
const (
	// SubjectStack: the stack as a whole (a bootstrap step).
	SubjectStack SubjectKind = "stack"
	// SubjectCluster: the whole cluster as read through its target (no
	// target was read), or the provider's cluster object (kapsule).
	SubjectCluster SubjectKind = "cluster"
	// SubjectNodes, SubjectNode: the list of nodes, one node (a provider's
	// node names its pool).
	SubjectNodes SubjectKind = "nodes"
	SubjectNode  SubjectKind = "node"
	// SubjectPools, SubjectPool: a managed cluster's node pools, one pool.
	SubjectPools SubjectKind = "pools"
	SubjectPool  SubjectKind = "pool"
	// SubjectVMs, SubjectVM: a bench's VMs, one VM.
	SubjectVMs SubjectKind = "vms"
	SubjectVM  SubjectKind = "vm"
	// SubjectLayers, SubjectLayer: the layers not declared (the search for
	// them), one layer.
	SubjectLayers SubjectKind = "layers"
	SubjectLayer  SubjectKind = "layer"
	// SubjectObject: one object an operator reports status on ("Cluster
	// db/main"), under its layer.
	SubjectObject SubjectKind = "object"
	// SubjectStorage: the cluster's default StorageClass.
	SubjectStorage SubjectKind = "storage"
	// SubjectVersion: a Kubernetes version the plan judges: the API
	// server's, a kubelet's, a minor, the desired one, the versions a
	// provider offers.
	SubjectVersion SubjectKind = "version"
	// SubjectAPI: an API group version the cluster serves or is called
	// on ("batch/v1beta1").
	SubjectAPI SubjectKind = "api"
	// SubjectPDB: a PodDisruptionBudget (a drain blocker).
	SubjectPDB SubjectKind = "pdb"
	// SubjectProvider: a managed provider's API itself.
	SubjectProvider SubjectKind = "provider"
	// SubjectSetting: a setting of the stack that is not a version
	// (auto_upgrade).
	SubjectSetting SubjectKind = "setting"
	// SubjectProviderObjects, SubjectProviderObject: a managed provider's
	// namespace (kube-system) as lists of objects read there, one object
	// of it ("ConfigMap kube-system/coredns").
	SubjectProviderObjects SubjectKind = "provider-objects"
	SubjectProviderObject  SubjectKind = "provider-object"
)

// Subject names what a claim is about, typed: its kind, its name, the pool
// of a provider's node, the topology key it concerns (Topology.Positions:
// "layers/cnpg", "kubernetes.version", "pools/default"…) and the words the
// text views name it with ("layer cnpg", "node n1 (pool default)").
// Formats read Kind, Name and Key; only the text views print Text. The key
// may name something not written in the file (an undeclared node): a
// position lookup falls back to its parent, then to name.
type Subject struct {
	Kind SubjectKind `json:"kind"`
	Name string      `json:"name,omitempty"`
	// Pool is the pool a provider's node belongs to, as the provider lists
	// it ("" when it is not listed).
	Pool string `json:"pool,omitempty"`
	// Layer is the layer an operator's object belongs to.
	Layer string `json:"layer,omitempty"`
	Key   string `json:"key"`
	Text  string `json:"text"`
}

// WholeClusterSubject is the cluster read through a target, as a whole:
// what is unknown when no target was read (its key, the kubeconfig, is
// what would give one).
func WholeClusterSubject() Subject {
	return Subject{Kind: SubjectCluster, Key: KeyKubeconfig, Text: "the whole cluster"}
}

// StackSubject is the stack named name (its bootstrap).
func StackSubject(name string) Subject {
	return Subject{Kind: SubjectStack, Name: name, Key: KeyName, Text: name}
}

// NodesSubject is the list of nodes the API server lists; key is where
// the topology declares them (nodes, or pools on a managed cluster).
func NodesSubject(key string) Subject {
	return Subject{Kind: SubjectNodes, Key: key, Text: "nodes"}
}

// NodeSubject is the node name the topology declares (or the cluster
// registers).
func NodeSubject(name string) Subject {
	return Subject{Kind: SubjectNode, Name: name, Key: NodeKey(name), Text: "node " + name}
}

// ProviderNodeSubject is a managed cluster's node name in pool (""
// when the provider lists it in no pool it knows): its key is the pool's.
func ProviderNodeSubject(name, pool string) Subject {
	s := Subject{Kind: SubjectNode, Name: name, Pool: pool, Key: KeyPools, Text: "node " + name}
	if pool != "" {
		s.Key = PoolKey(pool)
		s.Text += " (pool " + pool + ")"
	}
	return s
}

// PoolsSubject is a managed cluster's list of pools.
func PoolsSubject() Subject { return Subject{Kind: SubjectPools, Key: KeyPools, Text: "pools"} }

// PoolSubject is the pool name.
func PoolSubject(name string) Subject {
	return Subject{Kind: SubjectPool, Name: name, Key: PoolKey(name), Text: "pool " + name}
}

// VMsSubject is a bench's list of VMs; VMSubject one of them (a declared
// node's VM).
func VMsSubject() Subject { return Subject{Kind: SubjectVMs, Key: KeyNodes, Text: "VMs"} }

// VMSubject is the VM of the node name.
func VMSubject(name string) Subject {
	return Subject{Kind: SubjectVM, Name: name, Key: NodeKey(name), Text: "VM " + name}
}

// LayerSubject is the layer name.
func LayerSubject(name string) Subject {
	return Subject{Kind: SubjectLayer, Name: name, Key: LayerKey(name), Text: "layer " + name}
}

// UndeclaredLayersSubject is the search for layers the topology does not
// declare.
func UndeclaredLayersSubject() Subject {
	return Subject{Kind: SubjectLayers, Key: KeyLayers, Text: "undeclared layers"}
}

// ObjectSubject is the object ref ("Cluster db/main") of layer's status
// resources.
func ObjectSubject(layer, ref string) Subject {
	return Subject{Kind: SubjectObject, Name: ref, Layer: layer, Key: LayerKey(layer), Text: ref}
}

// StorageSubject is the cluster's default StorageClass.
func StorageSubject() Subject {
	return Subject{Kind: SubjectStorage, Key: KeyBackend, Text: "default StorageClass"}
}

// VersionSubject is a Kubernetes version the plan judges, named as text
// says ("api-server", "kubelet v1.34.1", "1.34", "server version").
func VersionSubject(text string) Subject {
	return Subject{Kind: SubjectVersion, Name: text, Key: KeyVersion, Text: text}
}

// APISubject is the API group version gv.
func APISubject(gv string) Subject {
	return Subject{Kind: SubjectAPI, Name: gv, Key: KeyVersion, Text: gv}
}

// PDBSubject is the PodDisruptionBudget ref ("ns/name"), or all of them
// when ref is "".
func PDBSubject(ref string) Subject {
	if ref == "" {
		return Subject{Kind: SubjectPDB, Key: KeyVersion, Text: "PodDisruptionBudgets"}
	}
	return Subject{Kind: SubjectPDB, Name: ref, Key: KeyVersion, Text: "pdb " + ref}
}

// ProviderSubject is a managed provider's API.
func ProviderSubject() Subject {
	return Subject{Kind: SubjectProvider, Key: KeyScaleway, Text: "the provider's API"}
}

// ProviderClusterSubject is a managed cluster as its provider lists it
// (name "" when its name is not known).
func ProviderClusterSubject(name string) Subject {
	s := Subject{Kind: SubjectCluster, Name: name, Key: KeyScaleway, Text: "cluster"}
	if name != "" {
		s.Text += " " + name
	}
	return s
}

// SettingSubject is the setting at key (kubernetes.auto_upgrade), named
// text.
func SettingSubject(key, text string) Subject {
	return Subject{Kind: SubjectSetting, Name: text, Key: key, Text: text}
}

// ReasonCode says, from a closed set, why a part of ACTUAL is unknown,
// beside the words that say it to a person: the JSON document's
// unknowns[].reason and each SARIF result's properties.reason carry it; the
// text, Markdown and JUnit say the words, Prometheus counts the unknowns.
type ReasonCode string

// The reason codes.
const (
	// ReasonNoTarget: nothing was read (no kubeconfig, no bench, no
	// credentials).
	ReasonNoTarget ReasonCode = "no-target"
	// ReasonForbidden: the API refused the identity this verb (403).
	ReasonForbidden ReasonCode = "forbidden"
	// ReasonUnauthorized: the API refused the credentials (401).
	ReasonUnauthorized ReasonCode = "unauthorized"
	// ReasonTimedOut: the read did not finish before its deadline.
	ReasonTimedOut ReasonCode = "timed-out"
	// ReasonInterrupted: the operator stopped the read (Ctrl-C).
	ReasonInterrupted ReasonCode = "interrupted"
	// ReasonUnreachable: no connection (DNS, refused, reset).
	ReasonUnreachable ReasonCode = "unreachable"
	// ReasonTLS: the server's certificate or protocol was refused.
	ReasonTLS ReasonCode = "tls"
	// ReasonRefused: nestor's own rules refused to send the request (a
	// write, a redirect, another host, the stack's guard).
	ReasonRefused ReasonCode = "refused"
	// ReasonAnswerRefused: the answer was refused: too large, inconsistent
	// (an item listed twice, a lying total), or not what was asked.
	ReasonAnswerRefused ReasonCode = "answer-refused"
	// ReasonServerError: the server answered an error (5xx, or a status
	// nestor has no better word for).
	ReasonServerError ReasonCode = "server-error"
	// ReasonNotServed: the API is not served by this cluster (404).
	ReasonNotServed ReasonCode = "not-served"
	// ReasonSuspended: the object's owner was told to stop acting on it
	// (suspended, paused, reconciliation disabled): its status may be
	// frozen, so its health is not judged.
	ReasonSuspended ReasonCode = "suspended"
	// ReasonNotReported: the owner has reported no status nestor can
	// judge: none yet, a stale one, or a word it does not know (the words
	// say which).
	ReasonNotReported ReasonCode = "not-reported"
	// ReasonNotInstalled: a program the read runs is not installed.
	ReasonNotInstalled ReasonCode = "not-installed"
	// ReasonNotRead: the part was not read because what it rests on was
	// not (or it was left unread on purpose).
	ReasonNotRead ReasonCode = "not-read"
	// ReasonUnrecognised: a value was read that nestor does not know (a
	// status word, a version it cannot compare).
	ReasonUnrecognised ReasonCode = "unrecognised"
	// ReasonNotOffered: the provider offers nothing that fulfils the
	// declared value.
	ReasonNotOffered ReasonCode = "not-offered"
	// ReasonFailed: the read failed for another reason (a program's
	// error, a local file).
	ReasonFailed ReasonCode = "failed"
)

// ReasonCodes are every ReasonCode, in the order docs/topology.md lists
// them.
func ReasonCodes() []ReasonCode {
	return []ReasonCode{ReasonNoTarget, ReasonForbidden, ReasonUnauthorized, ReasonTimedOut, ReasonInterrupted,
		ReasonUnreachable, ReasonTLS, ReasonRefused, ReasonAnswerRefused, ReasonServerError, ReasonNotServed,
		ReasonNotReported, ReasonSuspended, ReasonNotInstalled, ReasonNotRead, ReasonUnrecognised, ReasonNotOffered, ReasonFailed}
}

// Why is the reason a part could not be read: its code and its words.
type Why struct {
	Code ReasonCode `json:"code"`
	Text string     `json:"text"`
}

// Because returns the Why of code, said in text.
func Because(code ReasonCode, text string) Why { return Why{Code: code, Text: text} }

// orNotRead is w with what a probe that gave no reason means: the code
// ReasonNotRead, the words "not read" (OrNotRead).
func (w Why) orNotRead() Why {
	if w.Code == "" {
		w.Code = ReasonNotRead
	}
	w.Text = OrNotRead(w.Text)
	return w
}

// Prefixed returns w with its words after prefix ("discovery: " + …), the
// same code.
func (w Why) Prefixed(prefix string) Why { w.Text = prefix + w.Text; return w }

// UnknownPart is a part of ACTUAL that could not be read, or a judgement that
// rests on one: what it is about, why (a code and its words). Nothing is
// planned for it, and a plan beside it is never in sync.
type UnknownPart struct {
	Subject Subject `json:"subject"`
	// Code is why, from the closed set (Fact.Code, LayerState.Code), under
	// the JSON name "reason" that format version 2 gave it.
	Code ReasonCode `json:"reason"`
	// Message says why, in words ("forbidden (user … cannot list …)").
	Message string `json:"message"`
}

// String is the unknown in one line, as the text views print it:
// "layer cnpg: forbidden (…)".
func (u UnknownPart) String() string { return u.Subject.Text + ": " + u.Message }

// WaitingObject is an object the provider is moving (creating, upgrading,
// scaling…): not in sync, not a change, no step.
type WaitingObject struct {
	Subject Subject `json:"subject"`
	// Message says what the provider is doing ("upgrading to 1.35.2").
	Message string `json:"message"`
}

// String is the waiting object in one line: "pool default: scaling".
func (w WaitingObject) String() string { return w.Subject.Text + ": " + w.Message }

// UnknownOf returns the UnknownPart of s whose fact was not read: its code
// (ReasonNotRead when the fact carries none) and its words (ReasonOr).
func UnknownOf(s Subject, code ReasonCode, reason string) UnknownPart {
	w := Because(code, reason).orNotRead()
	return UnknownPart{Subject: s, Code: w.Code, Message: w.Text}
}

// AddUnknown appends an unknown part to p: s, why it could not be read
// (code, and the words of reason).
func (p *Plan) AddUnknown(s Subject, code ReasonCode, reason string) {
	p.Unknowns = append(p.Unknowns, UnknownOf(s, code, reason))
}

// Add appends a step of kind in phase to p, acting on target, with its
// reason (NewStep): the one way the plan's rules add a step.
func (p *Plan) Add(kind StepKind, phase, target, reason string) {
	p.Steps = append(p.Steps, NewStep(kind, phase, target, reason))
}

// AddWaiting appends an object the provider is moving to p.
func (p *Plan) AddWaiting(s Subject, message string) {
	p.Waiting = append(p.Waiting, WaitingObject{Subject: s, Message: message})
}

// Texts returns the one-line texts of us (UnknownPart.String, WaitingObject.String), in order.
func Texts[T interface{ String() string }](us []T) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.String()
	}
	return out
}

// stepSubject is the subject of a step of kind acting on target in phase:
// a node's, a layer's, a pool's, the version's, the stack's.
func stepSubject(kind StepKind, phase, target string) Subject {
	switch kind {
	case StepCreateVM, StepStartVM:
		return VMSubject(target)
	case StepJoinNode, StepRepairNode, StepUpgradeNode:
		return NodeSubject(target)
	case StepInstall, StepRepair:
		return LayerSubject(target)
	case StepMigrateBackend:
		s := LayerSubject(target)
		s.Key = KeyBackend
		return s
	case StepCreatePool, StepUpdatePool, StepReplacePool, StepUpgradePool:
		return PoolSubject(target)
	case StepReplaceNode:
		return ProviderNodeSubject(target, "")
	case StepUpgrade:
		return VersionSubject(target)
	case StepUpdateCluster:
		return SettingSubject(KeyAutoUpgrade, target)
	case StepSetACL:
		return SettingSubject(KeyACL, "scaleway.acl")
	case StepRenameCluster:
		return SettingSubject(ScalewayKey("cluster_name"), "scaleway.cluster_name")
	case StepSetType:
		return OfferSubject("cluster type")
	case StepBootstrap:
		return StackSubject(target)
	case StepUndeclared:
		switch phase {
		case PhaseK8s:
			return NodeSubject(target)
		case PhasePools:
			return PoolSubject(target)
		}
		return LayerSubject(target)
	}
	return Subject{Kind: SubjectStack, Key: KeyName, Text: target}
}

// NewStep returns the step of kind in phase acting on target, with its
// reason and its subject (stepSubject).
func NewStep(kind StepKind, phase, target, reason string) Step {
	return NewStepAbout(kind, phase, target, reason, stepSubject(kind, phase, target))
}

// NewStepAbout is NewStep with its subject given: a step whose target
// alone does not say what it is about (a provider's node, named with its
// pool).
func NewStepAbout(kind StepKind, phase, target, reason string, subject Subject) Step {
	return Step{Kind: kind, Phase: phase, Target: target, Reason: reason, Subject: subject}
}

// String is the subject as the text views name it (Text).
func (s Subject) String() string { return s.Text }

// Covers reports whether a claim about s reaches the topology key: its own
// key, and what an unread part takes with it. The whole cluster (no
// target) covers every key; the list of nodes, VMs or pools covers each of
// its entries ("nodes" covers "nodes/n1"); a managed provider's API covers
// everything the provider holds (scaleway and its keys, the pools, the
// versions); its cluster object covers scaleway, its keys (scaleway.acl, scaleway.type…)
// and the cluster's version and settings.
// A view uses it so that nothing an unread part takes with it is shown as
// read: a JUnit testcase it covers is skipped, never passed.
func (s Subject) Covers(key string) bool {
	switch {
	case s.Key == key:
		return true
	case s.Kind == SubjectCluster && s.Key == KeyKubeconfig:
		return true
	case s.Kind == SubjectNodes || s.Kind == SubjectVMs || s.Kind == SubjectPools:
		return strings.HasPrefix(key, s.Key+"/")
	case s.Kind == SubjectProvider:
		return key == KeyScaleway || strings.HasPrefix(key, KeyScaleway+".") || key == KeyPools || strings.HasPrefix(key, KeyPools+"/") || strings.HasPrefix(key, KeyKubernetes+".")
	case s.Kind == SubjectCluster && s.Key == KeyScaleway:
		return strings.HasPrefix(key, KeyKubernetes+".") || strings.HasPrefix(key, KeyScaleway+".")
	}
	return false
}

// OfProvider reports whether s is one of a managed provider's objects
// (its API, its cluster object, its pools and their nodes), read through
// the provider's API rather than the cluster's.
func (s Subject) OfProvider() bool {
	return s.Kind == SubjectProvider || s.Key == KeyScaleway || strings.HasPrefix(s.Key, KeyScaleway+".") || s.Key == KeyPools || strings.HasPrefix(s.Key, KeyPools+"/")
}

// OrNotRead is r, or "not read" when r is empty: the reason of a part
// whose read left no reason of its own.
func OrNotRead(r string) string {
	if r == "" {
		return "not read"
	}
	return r
}
