package plan

import (
	"errors"
	"fmt"
	"strings"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// CheckOrder returns an error naming every rule the order of p's steps
// breaks, nil when p is a valid order: no step comes before a step it
// depends on, and a blocked step says what blocks it. vs is the versions
// the plan was built from (topology.DeriveVersions); unknown, the version
// sequence is checked without the kubelets' starting point. The rules,
// each a dependency of the cluster's:
//
//   - every StepRef in a step's Needs names a step earlier in the plan,
//     and the refs are distinct;
//   - a node the plan lists as undeclared is the subject of no change
//     step (an undeclared node is information);
//   - VMs before nodes (lima): create-vm and start-vm of a node come before
//     bootstrap and before any step of that node;
//   - bootstrap before join-node and before any layer's step (a layer is
//     installed on a cluster);
//   - repair-node of a node before its upgrade-node (kubeadm drains and
//     upgrades a node that works: kubernetes.io "Upgrading kubeadm
//     clusters");
//   - install of a layer before its repair and its migrate-backend;
//   - the API server (upgrade) moves one minor at a time (kubernetes.io
//     "Upgrading kubeadm clusters": "Skipping MINOR versions when upgrading
//     is unsupported"); a kubelet (upgrade-node) moves one minor at a time
//     and never above the API server as the plan has moved it so far, and
//     a pool (upgrade-pool) never above its cluster: every upgrade step to
//     a version at or below the one it moves to comes before it
//     (kubernetes.io "Version Skew Policy": "kubelet must not be newer than
//     kube-apiserver"); a pool moves to its cluster's version only, so the
//     last upgrade before an upgrade-pool moves to its version (Scaleway
//     Kubernetes API v1, UpgradePool);
//   - with vs known: after every upgrade step, every kubelet is within
//     KubeletSkewAllowed of the API server, unless the step names its node
//     in Blocked; a Blocked node is one no step of the plan moves, and the
//     step's reason says "blocked:" exactly when Blocked is set.
func CheckOrder(p topology.Plan, vs topology.Fact[topology.VersionsState]) error {
	var errs []error
	bad := func(i int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("step %d (%s): %s", i+1, topology.StepRef(p.Steps[i]), fmt.Sprintf(format, args...)))
	}
	first := map[string]int{} // StepRef → its first index
	undeclared := map[string]bool{}
	changed := map[string]bool{} // subject key+name of every change step
	for i, s := range p.Steps {
		ref := topology.StepRef(s)
		if _, dup := first[ref]; dup {
			bad(i, "the same step twice")
		} else {
			first[ref] = i
		}
		if s.Kind == topology.StepUndeclared && s.Subject.Kind == topology.SubjectNode {
			undeclared[s.Target] = true
		}
		if s.IsChange() {
			changed[string(s.Subject.Kind)+"/"+s.Subject.Name] = true
		}
	}
	after := func(i int, want func(topology.Step) bool) (int, bool) {
		for k := i + 1; k < len(p.Steps); k++ {
			if want(p.Steps[k]) {
				return k, true
			}
		}
		return 0, false
	}
	is := func(kind topology.StepKind, target string) func(topology.Step) bool {
		return func(s topology.Step) bool { return s.Kind == kind && (target == "" || s.Target == target) }
	}
	isVM := func(target string) func(topology.Step) bool {
		return func(s topology.Step) bool {
			return (s.Kind == topology.StepCreateVM || s.Kind == topology.StepStartVM) && (target == "" || s.Target == target)
		}
	}
	for i, s := range p.Steps {
		for _, n := range s.Needs {
			if k, ok := first[n]; !ok || k >= i {
				bad(i, "needs %q, which is not an earlier step of the plan", n)
			}
		}
		for a := range s.Needs {
			for b := a + 1; b < len(s.Needs); b++ {
				if s.Needs[a] == s.Needs[b] {
					bad(i, "needs %q twice", s.Needs[a])
				}
			}
		}
		switch s.Kind {
		case topology.StepJoinNode, topology.StepRepairNode, topology.StepUpgradeNode:
			if undeclared[s.Target] {
				bad(i, "node %s is not declared in the topology: it is information, never the subject of a change", s.Target)
			}
			if k, ok := after(i, isVM(s.Target)); ok {
				bad(i, "comes before step %d (%s): its VM runs first", k+1, topology.StepRef(p.Steps[k]))
			}
		}
		switch s.Kind {
		case topology.StepBootstrap:
			if k, ok := after(i, isVM("")); ok {
				bad(i, "comes before step %d (%s): the VMs run first", k+1, topology.StepRef(p.Steps[k]))
			}
		case topology.StepJoinNode:
			if k, ok := after(i, is(topology.StepBootstrap, "")); ok {
				bad(i, "comes before step %d (%s): a node joins a bootstrapped cluster", k+1, topology.StepRef(p.Steps[k]))
			}
		case topology.StepInstall, topology.StepRepair, topology.StepMigrateBackend:
			if k, ok := after(i, is(topology.StepBootstrap, "")); ok {
				bad(i, "comes before step %d (%s): a layer is installed on a cluster", k+1, topology.StepRef(p.Steps[k]))
			}
			if s.Kind != topology.StepInstall {
				if k, ok := after(i, is(topology.StepInstall, s.Target)); ok {
					bad(i, "comes before step %d (%s): the layer is installed first", k+1, topology.StepRef(p.Steps[k]))
				}
			}
		case topology.StepUpgradeNode:
			if k, ok := after(i, is(topology.StepRepairNode, s.Target)); ok {
				bad(i, "comes before step %d (%s): a node is repaired before it is upgraded", k+1, topology.StepRef(p.Steps[k]))
			}
		}
		if to, ok := topology.StepTo(s); ok && (s.Kind == topology.StepUpgradeNode || s.Kind == topology.StepUpgradePool) {
			if k, ok := after(i, func(c topology.Step) bool {
				ct, ok := topology.StepTo(c)
				return c.Kind == topology.StepUpgrade && ok && kube.CompareVersions(ct, to) <= 0
			}); ok {
				bad(i, "comes before step %d (%s): it would be newer than its control plane", k+1, topology.StepRef(p.Steps[k]))
			}
		}
		if to, ok := topology.StepTo(s); ok && s.Kind == topology.StepUpgradePool {
			for k := i - 1; k >= 0; k-- {
				if c := p.Steps[k]; c.Kind == topology.StepUpgrade {
					if ct, _ := topology.StepTo(c); kube.CompareVersions(ct, to) != 0 {
						bad(i, "follows step %d (%s): a pool is upgraded to its cluster's version only", k+1, topology.StepRef(c))
					}
					break
				}
			}
		}
		hasBlocked := strings.Contains(s.Reason, "blocked:")
		if hasBlocked != (len(s.Blocked) > 0) {
			bad(i, "its reason says blocked: %t, it names %d blocking subjects", hasBlocked, len(s.Blocked))
		}
		for _, b := range s.Blocked {
			if changed[string(b.Kind)+"/"+b.Name] {
				bad(i, "blocked by %s, which a step of the plan changes: it needs that step, it is not blocked", b.Text)
			}
		}
	}
	errs = append(errs, checkVersionSequence(p, vs)...)
	return errors.Join(errs...)
}

// checkVersionSequence walks p's upgrade and upgrade-node steps from the
// versions vs holds, and returns every step that skips a minor, moves a
// kubelet above the API server, or leaves a kubelet farther behind the API
// server than KubeletSkewAllowed without naming its node in Blocked.
func checkVersionSequence(p topology.Plan, vs topology.Fact[topology.VersionsState]) []error {
	var errs []error
	var cp kube.Version
	kubelets := map[string]kube.Version{}
	if vs.Known {
		cp = vs.Value.APIServer
		if vs.Value.Kubelets.Known {
			for _, g := range vs.Value.Kubelets.Value {
				for _, n := range g.Nodes {
					kubelets[n] = g.Version
				}
			}
		}
	}
	for i, s := range p.Steps {
		to, ok := topology.StepTo(s)
		if !ok {
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("step %d (%s): %s", i+1, topology.StepRef(s), fmt.Sprintf(format, args...)))
		}
		switch s.Kind {
		case topology.StepUpgrade:
			if cp.Known && cp.Major == to.Major && to.Minor > cp.Minor+1 {
				bad("the API server %s skips a minor", cp)
			}
			cp = to
			blocked := map[string]bool{}
			for _, b := range s.Blocked {
				blocked[b.Name] = true
			}
			for n, k := range kubelets {
				if !k.Known || k.Major != to.Major {
					continue
				}
				if behind := to.Minor - k.Minor; behind > KubeletSkewAllowed(k) && !blocked[n] {
					bad("kubelet %s on %s would be %d minors behind, more than the version skew policy allows, and the step neither follows its upgrade nor says it is blocked", k, n, behind)
				}
			}
		case topology.StepUpgradeNode:
			k, known := kubelets[s.Target]
			if known && k.Known && k.Major == to.Major && to.Minor > k.Minor+1 {
				bad("the kubelet %s skips a minor", k)
			}
			if cp.Known && cp.Major == to.Major && to.Minor > cp.Minor {
				bad("the kubelet would be newer than the API server %s", cp)
			}
			kubelets[s.Target] = to
		}
	}
	return errs
}
