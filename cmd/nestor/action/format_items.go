package action

import (
	"strings"

	"nestor.dev/nestor/topology"
)

// PlanItem is one thing the machine formats report about a stack: a plan
// step, a finding, a part of ACTUAL that could not be read (an entry of
// Plan.Unknowns) or an object the provider is moving (an entry of
// Plan.Waiting). Exactly one of its fields is set.
type PlanItem struct {
	Step    *topology.Step
	Finding *topology.Finding
	Unknown string
	Waiting string
}

// Items returns r's plan as PlanItems, in the report's order: the steps,
// the findings, the unknowns, then the waiting objects.
func (r *Report) Items() []PlanItem {
	var out []PlanItem
	for i := range r.Plan.Steps {
		out = append(out, PlanItem{Step: &r.Plan.Steps[i]})
	}
	for i := range r.Plan.Findings {
		out = append(out, PlanItem{Finding: &r.Plan.Findings[i]})
	}
	for _, u := range r.Plan.Unknowns {
		out = append(out, PlanItem{Unknown: u})
	}
	for _, w := range r.Plan.Waiting {
		out = append(out, PlanItem{Waiting: w})
	}
	return out
}

// Rule is the item's rule id: "step/KIND" (a step kind), "finding/KIND"
// (a finding kind), "unknown" or "waiting". Rules lists them all.
func (it PlanItem) Rule() string {
	switch {
	case it.Step != nil:
		return "step/" + string(it.Step.Kind)
	case it.Finding != nil:
		return "finding/" + string(it.Finding.Kind)
	case it.Unknown != "":
		return RuleUnknown
	}
	return RuleWaiting
}

// Level grades the item for CI, in SARIF's words: a finding keeps its
// severity (error, warning; info is "note"); a step that changes the
// cluster is a "warning" (the cluster is not what the topology declares),
// an undeclared one a "note" (information); an unknown part is a
// "warning" (nothing can be said of it, and --detailed-exitcode fails on
// it); a waiting object a "note" (the provider is moving it).
func (it PlanItem) Level() string {
	switch {
	case it.Step != nil && it.Step.IsChange():
		return LevelWarning
	case it.Step != nil:
		return LevelNote
	case it.Finding != nil:
		switch it.Finding.Severity {
		case topology.SeverityError:
			return LevelError
		case topology.SeverityWarning:
			return LevelWarning
		}
		return LevelNote
	case it.Unknown != "":
		return LevelWarning
	}
	return LevelNote
}

// The levels of PlanItem.Level (SARIF 2.1.0 §3.27.10 result.level).
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Message is the item's text in one line: "install cnpg: not found on the
// cluster: …", "error kubelet-skew kubelet v1.34.1: …", "unknown: layer
// flannel: forbidden", "waiting: pool default: scaling".
func (it PlanItem) Message() string {
	switch {
	case it.Step != nil:
		return string(it.Step.Kind) + " " + it.Step.Target + ": " + it.Step.Reason
	case it.Finding != nil:
		return string(it.Finding.Severity) + " " + string(it.Finding.Kind) + " " + it.Finding.Subject + ": " + it.Finding.Message
	case it.Unknown != "":
		return "unknown: " + it.Unknown
	}
	return "waiting: " + it.Waiting
}

// TopologyKey returns the key of the topology (topology.Positions) item
// concerns, from what the plan rules put in a step's Kind and Target, a
// finding's Kind and Subject, and the first words of an unknown or waiting
// entry:
//
//   - node steps (create-vm, start-vm, join-node, repair-node,
//     upgrade-node, an undeclared node): nodes/NAME;
//   - layer steps (install, repair, an undeclared layer): layers/NAME;
//     migrate-backend: backend;
//   - pool steps (create-, update-, replace-, upgrade-pool, an undeclared
//     pool): pools/NAME; replace-node: pools/POOL, the node's pool as the
//     provider lists it (pools when not listed);
//   - upgrade steps and version findings (downgrade, kubelet-*,
//     end-of-life*, calendar-unknown, provider-versions,
//     provider-calendar): kubernetes.version; update-cluster:
//     kubernetes.auto_upgrade;
//   - the provider's objects (locked, degraded, and unknown or waiting
//     entries): "cluster" → scaleway, "pool NAME" → pools/NAME, "node NAME
//     (pool POOL)" → pools/POOL;
//   - unknown parts: "layer NAME" → layers/NAME, "VM NAME" → nodes/NAME,
//     "nodes"/"VMs" → nodes (pools on kapsule), "default StorageClass" →
//     backend, versions → kubernetes.version, "the whole cluster" (no
//     target) → kubeconfig;
//   - anything else (bootstrap): name, the top of the file.
//
// The key may not be in the topology (an undeclared node, a key not
// written): Position falls back to its parent, then to name.
func (r *Report) TopologyKey(it PlanItem) string {
	pools := r.Desired.declaresPools()
	switch {
	case it.Step != nil:
		s := it.Step
		switch s.Kind {
		case topology.StepCreateVM, topology.StepStartVM, topology.StepJoinNode, topology.StepRepairNode, topology.StepUpgradeNode:
			return topology.NodeKey(s.Target)
		case topology.StepInstall, topology.StepRepair:
			return topology.LayerKey(s.Target)
		case topology.StepMigrateBackend:
			return topology.KeyBackend
		case topology.StepCreatePool, topology.StepUpdatePool, topology.StepReplacePool, topology.StepUpgradePool:
			return topology.PoolKey(s.Target)
		case topology.StepReplaceNode:
			if pool := r.kapsulePoolOf(s.Target); pool != "" {
				return topology.PoolKey(pool)
			}
			return topology.KeyPools
		case topology.StepUpgrade:
			return topology.KeyVersion
		case topology.StepUpdateCluster:
			return topology.KeyAutoUpgrade
		case topology.StepUndeclared:
			switch s.Phase {
			case topology.PhaseK8s:
				return topology.NodeKey(s.Target)
			case topology.PhasePools:
				return topology.PoolKey(s.Target)
			}
			return topology.LayerKey(s.Target)
		}
		return topology.KeyName
	case it.Finding != nil:
		switch it.Finding.Kind {
		case topology.FindingLocked, topology.FindingDegraded:
			return providerObjectKey(it.Finding.Subject)
		}
		return topology.KeyVersion
	case it.Waiting != "":
		return subjectKey(it.Waiting, pools)
	}
	return subjectKey(it.Unknown, pools)
}

// subjectKey is the key an unknown or waiting entry ("SUBJECT: why")
// concerns, by its subject (see TopologyKey).
func subjectKey(entry string, pools bool) string {
	subject, _, _ := strings.Cut(entry, ":")
	first, rest, _ := strings.Cut(subject, " ")
	switch {
	case first == "layer" && rest != "":
		return topology.LayerKey(rest)
	case first == "VM" && rest != "":
		return topology.NodeKey(rest)
	case subject == "VMs":
		return topology.KeyNodes
	case subject == "nodes" && pools, subject == "pools":
		return topology.KeyPools
	case subject == "nodes":
		return topology.KeyNodes
	case subject == "default StorageClass":
		return topology.KeyBackend
	case subject == "the whole cluster":
		return topology.KeyKubeconfig
	case subject == "server version", first == "kubelet", strings.HasPrefix(subject, "kubernetes"),
		strings.HasPrefix(subject, "cluster version"), strings.HasPrefix(subject, "versions offered"):
		return topology.KeyVersion
	case subject == "the provider's API", first == "cluster", first == "pool", first == "node":
		return providerObjectKey(subject)
	}
	return topology.KeyName
}

// providerObjectKey is the key of one of the provider's objects as the
// kapsule rules name it: "cluster" or "cluster NAME" → scaleway, "pool
// NAME" → pools/NAME, "node NAME (pool POOL)" → pools/POOL.
func providerObjectKey(subject string) string {
	first, rest, _ := strings.Cut(subject, " ")
	switch first {
	case "pool":
		if rest != "" {
			return topology.PoolKey(rest)
		}
		return topology.KeyPools
	case "node":
		if _, pool, ok := strings.Cut(rest, "(pool "); ok && strings.HasSuffix(pool, ")") {
			return topology.PoolKey(strings.TrimSuffix(pool, ")"))
		}
		return topology.KeyPools
	}
	return topology.KeyScaleway
}

// kapsulePoolOf is the name of the pool the provider lists node in, or ""
// when it is not listed.
func (r *Report) kapsulePoolOf(node string) string {
	if r.Actual == nil || r.Actual.Kapsule == nil || !r.Actual.Kapsule.Nodes.Known || !r.Actual.Kapsule.Pools.Known {
		return ""
	}
	k := r.Actual.Kapsule
	for _, n := range k.Nodes.Value {
		if n.Name != node {
			continue
		}
		for _, p := range k.Pools.Value {
			if p.ID == n.PoolID {
				return p.Name
			}
		}
	}
	return ""
}

// Position returns where key was written in the stack's topology: the key
// itself, else its parent ("nodes/x" → nodes, "kubernetes.version" →
// kubernetes), else name, the top of the file; the key whose position it
// is; and false when the topology has no positions (a report not built from
// a parsed file).
func (r *Report) Position(key string) (topology.Position, string, bool) {
	return positionIn(r.topology, key)
}

func positionIn(t *topology.Topology, key string) (topology.Position, string, bool) {
	for _, k := range keyChain(key) {
		if p, ok := t.PositionOf(k); ok {
			return p, k, true
		}
	}
	return topology.Position{}, "", false
}

// keyChain is key, its parent (the list of "nodes/x", the section of
// "kubernetes.version"), then name.
func keyChain(key string) []string {
	chain := []string{key}
	if i := strings.Index(key, "/"); i > 0 {
		chain = append(chain, key[:i])
	} else if i := strings.LastIndex(key, "."); i > 0 {
		chain = append(chain, key[:i])
	}
	if key != topology.KeyName {
		chain = append(chain, topology.KeyName)
	}
	return chain
}
