package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// UpgradePath returns the versions an upgrade from "from" to "to" passes
// through, one minor at a time: each minor in between ("1.38"), then "to"
// itself (a patch difference is one step). It is empty when from already
// satisfies to, is newer, or has another major. The API server must not skip
// minors (kubernetes.io "Version Skew Policy", kube-apiserver: instances
// within one minor; "Supported component upgrade order": upgrade from one
// minor to the next), and kubeadm upgrades one minor at a time
// (kubernetes.io "Upgrading kubeadm clusters": "Skipping MINOR versions when
// upgrading is unsupported").
func UpgradePath(from, to kube.Version) []kube.Version {
	if !from.Known || !to.Known || from.Major != to.Major || from.Satisfies(to) || kube.CompareVersions(from, to) > 0 {
		return nil
	}
	if kube.CompareMinor(from, to) == 0 && !to.HasPatch {
		return nil
	}
	var path []kube.Version
	for m := from.Minor + 1; m < to.Minor; m++ {
		path = append(path, kube.Version{Known: true, Major: from.Major, Minor: m})
	}
	return append(path, to)
}

// KubeletSkewAllowed returns how many minors older than kube-apiserver a
// kubelet at version k may be: 3, or 2 for a kubelet older than 1.25
// (kubernetes.io "Version Skew Policy", kubelet: "kubelet must not be newer
// than kube-apiserver" and "may be up to three minor versions older than
// kube-apiserver (kubelet < 1.25 may only be up to two minor versions older
// than kube-apiserver)").
func KubeletSkewAllowed(k kube.Version) int {
	if k.Major == 1 && k.Minor < 25 {
		return 2
	}
	return 3
}

// nodeSet is what the version rules need of the nodes beyond their
// kubelets: which the topology declares (only those get steps), and the
// StepRef of the repair-node step planned for a node ("" when none), which
// its first upgrade-node waits for.
type nodeSet struct {
	Declared map[string]bool
	Repair   map[string]string
}

// versionJudge holds what the version rules produced for one plan.
type versionJudge struct {
	steps    []topology.Step
	findings []topology.Finding
	unknowns []topology.UnknownPart
}

// judgeVersions applies the version rules to a stack: desired is the
// topology's kubernetes.version ("" when not declared), vs the observation's
// versions, nodes the nodes the topology declares and the repair-node steps
// planned for them, cal and asOf the support calendar and the day it is
// judged at (zero: not judged). It returns the steps in a dependency order
// (CheckOrder), the findings and the unknowns.
//
//   - desired vs the API server: the upgrade steps of UpgradePath; desired
//     below the server is not a step but an error finding (a downgrade is not
//     possible: nestor never plans one, upstream documents upgrades only —
//     kubernetes.io "Upgrading kubeadm clusters"), and then nothing else is
//     planned towards it;
//   - kubelets, when desired is declared (and not below the server):
//     upgrade-node steps for every declared node (nodes.Declared) whose
//     kubelet is behind it, one minor at a time, interleaved with the
//     control-plane steps so that the skew policy holds at every step
//     (planUpgrades); a node the topology does not declare gets no step,
//     but its kubelet still counts; a kubelet above desired is an error
//     finding;
//   - kubelets vs the server (judgeKubelets); a kubelet version that does
//     not parse (or is not reported) is an unknown of the plan when desired
//     is declared (the node steps depend on it), else an info finding;
//   - the calendar, for the server's minor and each kubelet minor
//     (JudgeSupport).
func judgeVersions(desired string, vs topology.Fact[topology.VersionsState], nodes nodeSet, cal kube.Calendar, asOf time.Time) versionJudge {
	var j versionJudge
	if !vs.Known {
		j.unknowns = append(j.unknowns, topology.UnknownOf(topology.VersionSubject("server version"), vs.Code, vs.Reason))
		return j
	}
	server := vs.Value.APIServer
	// Nodes unknown: already in the plan's unknowns ("nodes: …"), and no
	// kubelet is judged.
	groups := vs.Value.Kubelets.Value
	for _, g := range groups {
		if g.Version.Known {
			continue
		}
		if desired != "" {
			// The upgrade-node steps depend on it.
			j.unknowns = append(j.unknowns, topology.UnknownOf(topology.VersionSubject("kubelet version "+g.OnNodes()), topology.ReasonUnrecognised, g.Version.Reason))
		} else {
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityInfo, Kind: topology.FindingKubeletUnknown, Subject: topology.VersionSubject("kubelet " + quoteEmpty(g.Version.Raw)),
				Message: fmt.Sprintf("kubelet version %s unknown: %s; its skew with the API server is not judged", g.OnNodes(), g.Version.Reason)})
		}
	}

	upgraded := map[string]bool{} // kubelet raw versions with upgrade-node steps
	if desired != "" {
		want, err := kube.ParseDesiredVersion(desired)
		switch {
		case err != nil:
			j.unknowns = append(j.unknowns, topology.UnknownOf(topology.VersionSubject("kubernetes version"), topology.ReasonUnrecognised, "desired "+err.Error()))
		case want.Major != server.Major:
			j.unknowns = append(j.unknowns, topology.UnknownOf(topology.VersionSubject("kubernetes version"), topology.ReasonUnrecognised, fmt.Sprintf("desired %s and the API server %s differ in major version; nestor plans upgrades within a major version only", desired, server)))
		default:
			j.planUpgrades(desired, want, server, groups, nodes, upgraded)
		}
	}
	j.judgeKubelets(server, groups, upgraded)

	// Calendar: the server's minor, then each kubelet minor, once each.
	users := map[string][]string{}
	var order []kube.Version
	use := func(v kube.Version, who string) {
		m := v.MinorString()
		if _, seen := users[m]; !seen {
			order = append(order, v)
		}
		users[m] = append(users[m], who)
	}
	use(server, "the API server")
	for _, g := range groups {
		if g.Version.Known {
			use(g.Version, "kubelet "+g.Version.String()+" "+g.OnNodes())
		}
	}
	for _, v := range order {
		if f, ok := JudgeSupport(cal, v, strings.Join(users[v.MinorString()], "; "), asOf); ok {
			j.findings = append(j.findings, f)
		}
	}
	return j
}

// nodeTrack is one declared node's kubelet on its way to the desired
// version: where it is now (k, as the sequence has moved it), the steps of
// its UpgradePath not yet planned, and the step it waits for (its
// repair-node, "" when none).
type nodeTrack struct {
	node  string
	k     kube.Version
	path  []kube.Version
	next  int
	from  string
	total int
	after string
}

// step plans tr's next kubelet step and returns it.
func (tr *nodeTrack) step(desired string) topology.Step {
	to := tr.path[tr.next]
	reason := fmt.Sprintf("kubelet %s → %s", tr.from, to.Canonical())
	if tr.total > 1 {
		reason += fmt.Sprintf(" (step %d of %d to %s: one minor at a time, as kubeadm upgrades)", tr.next+1, tr.total, desired)
	}
	st := topology.NewStep(topology.StepUpgradeNode, topology.PhaseK8s, tr.node, reason)
	st.To = to.Canonical()
	if tr.next == 0 && tr.after != "" {
		st.Needs = []string{tr.after}
	}
	tr.k, tr.from = to, to.Canonical()
	tr.next++
	return st
}

// planUpgrades plans the move of the API server and the declared nodes'
// kubelets from what runs to want, as one sequence in which every step
// keeps the cluster within the version skew policy:
//
//   - the API server moves one minor at a time (UpgradePath: kubeadm
//     upgrades the control plane one minor at a time, kubernetes.io
//     "Upgrading kubeadm clusters": "Skipping MINOR versions when upgrading
//     is unsupported");
//   - before each of its steps, every declared node whose kubelet would be
//     farther behind the step's version than KubeletSkewAllowed is moved,
//     one minor at a time and never above the API server ("kubelet must not
//     be newer than kube-apiserver", kubernetes.io "Version Skew Policy"),
//     just far enough: the control-plane step names those kubelet steps
//     (Step.Needs) and says why;
//   - a kubelet no step of the plan moves (a node the topology does not
//     declare, nodes.Declared false) that would be too far behind blocks
//     the step: Step.Blocked names the node, the reason says what the
//     operator must do;
//   - then every declared node's remaining steps to want, node by node
//     (sorted by name); a node's first step waits for its repair-node
//     (nodes.Repair), which the plan puts before the version steps.
//
// want below the server is a downgrade finding and nothing is planned
// (the topology is to be fixed first). A kubelet above want is an error
// finding. upgraded gets the raw versions of the kubelets moved.
func (j *versionJudge) planUpgrades(desired string, want, server kube.Version, groups []topology.KubeletGroup, nodes nodeSet, upgraded map[string]bool) {
	if !server.Satisfies(want) && kube.CompareVersions(server, want) > 0 {
		j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingDowngrade, Subject: topology.VersionSubject("api-server"),
			Message: fmt.Sprintf("kubernetes.version %s is below the API server's %s: a downgrade is not possible (nestor plans upgrades only); declare %s or later", desired, server, server.MinorString())})
		return
	}
	var tracks []*nodeTrack
	var fixed []topology.KubeletGroup // kubelets behind want that no step moves
	for _, g := range groups {
		k := g.Version
		switch {
		case !k.Known || k.Major != want.Major || k.Satisfies(want):
		case kube.CompareVersions(k, want) > 0:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingDowngrade, Subject: topology.VersionSubject("kubelet " + k.String()),
				Message: fmt.Sprintf("kubelet %s %s is above kubernetes.version %s: a downgrade is not possible", k, g.OnNodes(), desired)})
		default:
			var stay []string
			for _, n := range g.Nodes {
				if !nodes.Declared[n] {
					stay = append(stay, n)
					continue
				}
				upgraded[k.Raw] = true
				path := UpgradePath(k, want)
				tracks = append(tracks, &nodeTrack{node: n, k: k, path: path, from: k.String(), total: len(path), after: nodes.Repair[n]})
			}
			if len(stay) > 0 {
				fixed = append(fixed, topology.KubeletGroup{Version: k, Count: len(stay), Nodes: stay})
			}
		}
	}
	sort.Slice(tracks, func(a, b int) bool { return tracks[a].node < tracks[b].node })

	path := UpgradePath(server, want)
	cur, from := server, server.String()
	for i, to := range path {
		var pre []topology.Step
		var needs, why, blockers []string
		var blocked []topology.Subject
		for _, tr := range tracks {
			before, beforeV := tr.from, tr.k
			moved := false
			for tr.next < len(tr.path) && to.Minor-tr.k.Minor > KubeletSkewAllowed(tr.k) && tr.path[tr.next].Minor <= cur.Minor {
				pre = append(pre, tr.step(desired))
				moved = true
			}
			if moved {
				last := pre[len(pre)-1]
				needs = append(needs, topology.StepRef(last))
				why = append(why, fmt.Sprintf("kubelet %s on %s would otherwise be %d minors behind %s, more than the %d the version skew policy allows", before, tr.node, to.Minor-beforeV.Minor, to.MinorString(), KubeletSkewAllowed(beforeV)))
			}
		}
		for _, g := range fixed {
			k := g.Version
			if behind := to.Minor - k.Minor; behind > KubeletSkewAllowed(k) {
				who, verb := "it is", "declare it under nodes:"
				if len(g.Nodes) > 1 {
					who, verb = "they are", "declare them under nodes:"
				}
				blockers = append(blockers, fmt.Sprintf("kubelet %s %s would be %d minors behind %s, more than the %d the version skew policy allows, and %s not declared in the topology, so no step of this plan upgrades it: upgrade it to %d.%d or later outside nestor, or %s, first",
					k, g.OnNodes(), behind, to.MinorString(), KubeletSkewAllowed(k), who, k.Major, to.Minor-KubeletSkewAllowed(k), verb))
				for _, n := range g.Nodes {
					blocked = append(blocked, topology.NodeSubject(n))
				}
			}
		}
		reason := fmt.Sprintf("API server %s → %s", from, to.Canonical())
		if len(path) > 1 {
			reason += fmt.Sprintf(" (step %d of %d to %s: the API server must not skip minors)", i+1, len(path), desired)
		}
		if len(needs) > 0 {
			reason += fmt.Sprintf("; after %s: %s", strings.Join(needs, ", "), strings.Join(why, "; "))
		}
		if len(blockers) > 0 {
			reason += "; blocked: " + strings.Join(blockers, "; ")
		}
		st := topology.NewStep(topology.StepUpgrade, topology.PhaseK8s, "kubernetes", reason)
		st.To = to.Canonical()
		st.Needs = needs
		st.Blocked = blocked
		j.steps = append(j.steps, pre...)
		j.steps = append(j.steps, st)
		cur, from = to, to.Canonical()
	}
	for _, tr := range tracks {
		for tr.next < len(tr.path) {
			j.steps = append(j.steps, tr.step(desired))
		}
	}
}

// judgeKubelets judges each kubelet version against the API server
// (kubernetes.io "Version Skew Policy", see KubeletSkewAllowed):
//
//   - newer than the server (minor), or another major: an error finding
//     (unsupported skew);
//   - farther behind than allowed: an error finding (unsupported skew);
//   - exactly as far behind as allowed (3 minors; 2 below 1.25): supported,
//     but the API server cannot be upgraded before this kubelet — an error
//     finding that says so;
//   - behind within the allowed skew, with no upgrade-node step planned for
//     it (upgraded[raw] false): an info finding.
func (j *versionJudge) judgeKubelets(server kube.Version, groups []topology.KubeletGroup, upgraded map[string]bool) {
	for _, g := range groups {
		k := g.Version
		if !k.Known {
			continue
		}
		subject := "kubelet " + k.String()
		allowed := KubeletSkewAllowed(k)
		behind := server.Minor - k.Minor
		switch {
		case k.Major != server.Major:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingKubeletSkew, Subject: topology.VersionSubject(subject),
				Message: fmt.Sprintf("kubelet %s %s has another major version than the API server %s: unsupported skew", k, g.OnNodes(), server)})
		case behind < 0:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingKubeletNewer, Subject: topology.VersionSubject(subject),
				Message: fmt.Sprintf("kubelet %s %s is newer than the API server %s: unsupported skew (the version skew policy: kubelet must not be newer than kube-apiserver)", k, g.OnNodes(), server)})
		case behind > allowed:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingKubeletSkew, Subject: topology.VersionSubject(subject),
				Message: fmt.Sprintf("kubelet %s %s is %d minors behind the API server %s: unsupported skew (the version skew policy allows at most %d)", k, g.OnNodes(), behind, server, allowed)})
		case behind == allowed && behind > 0:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingKubeletSkew, Subject: topology.VersionSubject(subject),
				Message: fmt.Sprintf("kubelet %s %s is %d minors behind the API server %s, the most the version skew policy allows: the API server cannot be upgraded to %d.%d until this kubelet is upgraded", k, g.OnNodes(), behind, server, server.Major, server.Minor+1)})
		case behind > 0 && !upgraded[k.Raw]:
			j.findings = append(j.findings, topology.Finding{Severity: topology.SeverityInfo, Kind: topology.FindingKubeletBehind, Subject: topology.VersionSubject(subject),
				Message: fmt.Sprintf("kubelet %s %s is %s behind the API server %s: allowed (the version skew policy allows %d)", k, g.OnNodes(), kube.Plural(behind, "minor"), server, allowed)})
		}
	}
}

// quoteEmpty is s, or `""` when s is empty.
func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
