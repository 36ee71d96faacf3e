package health

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// workloadResult is what the facts say about one Workload of a def.
type workloadResult struct {
	w       topology.Workload
	matches []topology.WorkloadState // found, in any of its namespaces
	// unread lists the namespaces where it could be but whose workloads
	// were not read (not in facts.WorkloadNamespaces, and not known to be
	// missing from the cluster), and were not tried either.
	unread []string
	// failed lists the namespaces where it could be whose workload lists
	// failed (facts.WorkloadErrors has their reason).
	failed []string
}

func (r workloadResult) namespaces(def topology.LayerDef) []string {
	if r.w.Namespace != "" {
		return []string{r.w.Namespace}
	}
	return def.Namespaces
}

func workloadMatches(w topology.Workload, ws topology.WorkloadState) bool {
	if ws.Kind != w.Kind {
		return false
	}
	if topology.NameMatches(w.Name, ws.Name) {
		return true
	}
	for _, alt := range w.AltNames {
		if topology.NameMatches(alt, ws.Name) {
			return true
		}
	}
	return false
}

func available(ws topology.WorkloadState) bool { return ws.Desired > 0 && ws.Ready >= ws.Desired }

func describe(ws topology.WorkloadState) string {
	return fmt.Sprintf("%s/%s %d/%d available", ws.Namespace, ws.Name, ws.Ready, ws.Desired)
}

// lookWorkload searches facts for w in its namespaces (w.Namespace, else
// def.Namespaces). Call only when facts.Workloads is known.
func lookWorkload(def topology.LayerDef, w topology.Workload, facts topology.ClusterFacts) workloadResult {
	r := workloadResult{w: w}
	for _, ns := range r.namespaces(def) {
		read := slices.Contains(facts.WorkloadNamespaces, ns)
		if !read && facts.Namespaces.Known && !slices.Contains(facts.Namespaces.Value, ns) {
			read = true // the namespace does not exist: nothing can be in it
		}
		if !read {
			if _, ok := facts.WorkloadErrors[ns]; ok {
				r.failed = append(r.failed, ns)
			} else {
				r.unread = append(r.unread, ns)
			}
			continue
		}
		for _, ws := range facts.Workloads.Value {
			if ws.Namespace == ns && workloadMatches(w, ws) {
				r.matches = append(r.matches, ws)
			}
		}
	}
	return r
}

// JudgeWorkloads judges one layer against what the kube prober read. It is pure.
//
// A layer is present when any of its CRD groups, any of its provisioners (on
// any StorageClass) or any of its workloads is found. A def with no
// workloads, CRD groups or provisioners (a custom layer with only
// detect.namespace) is present when its namespace exists. Then:
//   - healthy: every Workload is found (in w.Namespace, else in one of the
//     def's Namespaces) and every match has Desired > 0 and Ready >= Desired;
//     Reason says what was seen;
//   - degraded: some workload is missing or not available; Reason names each
//     ("argocd/argocd-repo-server 0/1 available", "StatefulSet
//     argocd-application-controller not found in argocd");
//   - unknown: present, nothing known to be wrong, but some workload could
//     not be looked for (its namespaces were not read).
//
// When nothing is found: absent only if every fact it needed is known (and
// every namespace it needed was read, or is known not to exist); otherwise
// unknown with the probe's reason ("CRDs: forbidden …"). A workload whose
// namespace is not in facts.WorkloadNamespaces counts as unknown, not
// missing: the reason is that namespace's own error from
// facts.WorkloadErrors ("deployments in argocd: forbidden (…)", once per
// namespace), or "not checked: KIND NAME (namespace NS not read)" when the
// namespace was not tried. When facts.Workloads is unknown (every list
// failed) the reason is the errors of the layer's own namespaces when
// WorkloadErrors has them, else "workloads: " and the fact's reason. The
// result carries def.Name and declared.
func JudgeWorkloads(def topology.LayerDef, facts topology.ClusterFacts, declared bool) topology.LayerState {
	var e evidence
	e.signals(def, facts)
	e.workloads(def, facts)
	return e.verdict(def, declared)
}

// evidence is what JudgeWorkloads found of one layer: the signs seen, the reads
// that failed, the workloads not available and those not looked for.
type evidence struct {
	seen, unknowns    []string
	present, missing  bool // a sign was seen; a workload was not found (or not read)
	problems, unread  []string
	namespaceFailures []string
	// code is the ReasonCode of the first part that could not be read.
	code topology.ReasonCode
	// all is every workload, CRD group and StorageClass seen, in the
	// order they were (LayerState.Detail); available counts the workloads
	// seen available.
	all       []string
	available int
}

// unknown records a part of the layer's evidence that could not be read:
// its words, and its code when it is the first.
func (e *evidence) unknown(why topology.Why) {
	e.unknowns = append(e.unknowns, why.Text)
	e.because(why.Code)
}

// because keeps code as the evidence's code when none is kept yet.
func (e *evidence) because(code topology.ReasonCode) {
	if e.code == "" {
		e.code = code
	}
}

// signals looks for the layer's CRD groups and provisioners, and for a
// layer known by its namespaces only, those.
func (e *evidence) signals(def topology.LayerDef, facts topology.ClusterFacts) {
	if len(def.CRDGroups) > 0 {
		if !facts.CRDGroups.Known {
			e.unknown(facts.CRDGroups.Why().Prefixed("CRDs: "))
		} else {
			for _, g := range def.CRDGroups {
				if slices.Contains(facts.CRDGroups.Value, g) {
					e.present = true
					e.seen = append(e.seen, "CRD group "+g)
					e.all = append(e.all, "CRD group "+g)
				}
			}
		}
	}
	if len(def.Provisioners) > 0 {
		if !facts.StorageClasses.Known {
			e.unknown(facts.StorageClasses.Why().Prefixed("StorageClasses: "))
		} else {
			for _, sc := range facts.StorageClasses.Value {
				if slices.Contains(def.Provisioners, sc.Provisioner) {
					e.present = true
					e.seen = append(e.seen, "StorageClass "+sc.Name+" ("+sc.Provisioner+")")
					e.all = append(e.all, "StorageClass "+sc.Name+" ("+sc.Provisioner+")")
				}
			}
		}
	}
	if len(def.Workloads) == 0 && len(def.CRDGroups) == 0 && len(def.Provisioners) == 0 {
		// Only namespaces: their existence is the signal.
		if !facts.Namespaces.Known {
			e.unknown(facts.Namespaces.Why().Prefixed("namespaces: "))
		} else {
			for _, ns := range def.Namespaces {
				if slices.Contains(facts.Namespaces.Value, ns) {
					e.present = true
					e.seen = append(e.seen, "namespace "+ns)
				}
			}
		}
	}
}

// workloads looks for each of the layer's workloads and their
// availability.
func (e *evidence) workloads(def topology.LayerDef, facts topology.ClusterFacts) {
	if len(def.Workloads) == 0 {
		return
	}
	if !facts.Workloads.Known {
		// Every list failed: give the errors of this layer's own
		// namespaces when they are known, else the fact's reason.
		var own []string
		for _, w := range def.Workloads {
			for _, ns := range (workloadResult{w: w}).namespaces(def) {
				if err, ok := facts.WorkloadErrors[ns]; ok && !slices.Contains(own, err.Text) {
					own = append(own, err.Text)
					e.because(err.Code)
				}
			}
		}
		if len(own) == 0 {
			why := facts.Workloads.Why().Prefixed("workloads: ")
			own = []string{why.Text}
			e.because(why.Code)
		}
		e.unknowns = append(e.unknowns, own...)
		e.missing = true
		return
	}
	named := map[string]bool{}
	for _, w := range def.Workloads {
		r := lookWorkload(def, w, facts)
		switch {
		case len(r.matches) > 0:
			e.present = true
			for _, m := range r.matches {
				named[workloadKey(m)] = true
				e.all = append(e.all, describe(m))
				if !available(m) {
					e.problems = append(e.problems, describe(m))
				} else {
					e.seen = append(e.seen, describe(m))
					e.available++
				}
			}
		case len(r.unread) > 0 || len(r.failed) > 0:
			e.missing = true
			for _, ns := range r.failed {
				if err := facts.WorkloadErrors[ns]; !slices.Contains(e.namespaceFailures, err.Text) {
					e.namespaceFailures = append(e.namespaceFailures, err.Text)
					e.because(err.Code)
				}
			}
			if len(r.unread) > 0 {
				e.unread = append(e.unread, fmt.Sprintf("%s %s (namespace %s not read)", w.Kind, w.Name, strings.Join(r.unread, ", ")))
				e.because(topology.ReasonNotRead)
			}
		default:
			e.missing = true
			e.problems = append(e.problems, fmt.Sprintf("%s %s not found in %s", w.Kind, w.Name, strings.Join(r.namespaces(def), ", ")))
		}
	}
	if !e.present {
		return // members are judged once the layer is detected
	}
	// The namespaces members may be in: a list that failed or was not
	// made there leaves the layer's members unknown, never healthy.
	for _, ns := range memberNamespaces(def) {
		switch {
		case slices.Contains(facts.WorkloadNamespaces, ns):
		case facts.Namespaces.Known && !slices.Contains(facts.Namespaces.Value, ns):
			// the namespace does not exist: no member is in it
		default:
			if err, failed := facts.WorkloadErrors[ns]; failed {
				if !slices.Contains(e.namespaceFailures, err.Text) {
					e.namespaceFailures = append(e.namespaceFailures, err.Text)
				}
				e.because(err.Code)
			} else if u := "the layer's workloads (namespace " + ns + " not read)"; !slices.Contains(e.unread, u) {
				e.unread = append(e.unread, u)
				e.because(topology.ReasonNotRead)
			}
		}
	}
	for _, ws := range facts.Workloads.Value {
		if named[workloadKey(ws)] || !def.IsMember(ws) || !slices.Contains(facts.WorkloadNamespaces, ws.Namespace) {
			continue
		}
		e.all = append(e.all, describe(ws))
		switch {
		case ws.Desired > 0 && ws.Ready < ws.Desired:
			e.problems = append(e.problems, describe(ws))
		case ws.Desired > 0:
			e.seen = append(e.seen, describe(ws))
			e.available++
		}
		// Scaled to zero (a Deployment at replicas 0, a DaemonSet no
		// node is selected for): its owner asked for none, listed only.
	}
}

// memberNamespaces are the namespaces def's members may be in: the ones
// it owns, and all of its namespaces when members are known by a label.
func memberNamespaces(def topology.LayerDef) []string {
	if len(def.Members.PartOf) > 0 {
		return def.Namespaces
	}
	return def.Members.Namespaces
}

// workloadKey is ws's identity: its kind, namespace and name.
func workloadKey(ws topology.WorkloadState) string {
	return ws.Kind + "/" + ws.Namespace + "/" + ws.Name
}

// verdict is the layer's state from what was found: degraded when a sign
// was seen and a workload is not available or not found; unknown when a
// sign was seen but what was not read could change that, or when nothing
// was seen and something was not read; healthy when every sign seen holds;
// absent when every read was made and nothing was seen.
func (e *evidence) verdict(def topology.LayerDef, declared bool) topology.LayerState {
	st := topology.LayerState{Name: def.Name, Declared: declared, Detail: e.all, Available: e.available}
	// unchecked says why some workloads could not be looked for: the
	// errors of the namespaces whose lists failed, then those not read.
	unchecked := e.namespaceFailures
	if len(e.unread) > 0 {
		unchecked = append(unchecked, "not checked: "+strings.Join(e.unread, ", "))
	}
	switch {
	case e.present && len(e.problems) > 0:
		st.Health = topology.Degraded
		st.Reason = strings.Join(append(e.problems, unchecked...), "; ")
	case e.present && (len(unchecked) > 0 || (e.missing && len(e.unknowns) > 0)):
		st.Health, st.Code = topology.Unknown, e.why()
		parts := append(append([]string{}, e.unknowns...), unchecked...)
		st.Reason = "present (" + strings.Join(e.seen, ", ") + ") but " + strings.Join(parts, "; ")
	case e.present:
		st.Health = topology.Healthy
		st.Reason = strings.Join(e.seen, ", ")
	case len(e.unknowns) > 0 || len(unchecked) > 0:
		st.Health, st.Code = topology.Unknown, e.why()
		parts := append(append([]string{}, e.unknowns...), unchecked...)
		st.Reason = strings.Join(parts, "; ")
	default:
		st.Health = topology.Absent
		st.Reason = absentReason(def)
	}
	return st
}

// why is the evidence's ReasonCode: its first unread part's, else
// ReasonNotRead.
func (e *evidence) why() topology.ReasonCode {
	if e.code == "" {
		return topology.ReasonNotRead
	}
	return e.code
}

// absentReason names what was looked for and not found, so an absent layer
// says what absence means here (a custom layer's detect: may name one
// workload only).
func absentReason(def topology.LayerDef) string {
	if def.Category != topology.CategoryCustom {
		return "none of its CRDs, StorageClasses or workloads found"
	}
	var looked []string
	for _, w := range def.Workloads {
		ns := w.Namespace
		if ns == "" && len(def.Namespaces) > 0 {
			ns = def.Namespaces[0]
		}
		looked = append(looked, strings.ToLower(w.Kind)+" "+ns+"/"+w.Name)
	}
	for _, g := range def.CRDGroups {
		looked = append(looked, "CRDs of group "+g)
	}
	for _, r := range def.Status {
		looked = append(looked, r.Kind+" "+refName(r))
	}
	if len(looked) == 0 && len(def.Namespaces) > 0 {
		looked = append(looked, "namespace "+def.Namespaces[0])
	}
	if len(looked) == 0 {
		return "not found"
	}
	return "not found: " + strings.Join(looked, ", ")
}

// undeclared returns the catalog layers that t does not declare but that the
// cluster shows, each with Declared=false and its health (JudgeWorkloads). It is
// judged by cheap, specific signals only: one of the layer's CRD groups, a
// StorageClass with one of its provisioners, or one of its workloads in the
// namespaces read. A namespace alone is not taken as a sign (namespaces are
// shared — kube-system, monitoring — and outlive uninstalls). A layer whose
// signals could not be read is left out: undeclared steps are information,
// never a guess. Order: catalog order.
func undeclared(t *topology.Topology, facts topology.ClusterFacts) []topology.LayerState {
	declared := map[string]bool{}
	for _, l := range t.Layers {
		declared[l.Name] = true
	}
	var out []topology.LayerState
	for _, def := range topology.Catalog() {
		if declared[def.Name] {
			continue
		}
		if !SignalSeen(def, facts) {
			continue
		}
		out = append(out, judged(JudgeLayer(def, facts, facts.Status, false)))
	}
	return out
}

// SignalSeen reports whether facts show one of def's CRD groups, or one of
// its provisioners on a StorageClass: the cheap signals that a layer is
// installed, read without its workloads. Unknown facts show nothing.
func SignalSeen(def topology.LayerDef, facts topology.ClusterFacts) bool {
	if facts.CRDGroups.Known {
		for _, g := range def.CRDGroups {
			if slices.Contains(facts.CRDGroups.Value, g) {
				return true
			}
		}
	}
	if facts.StorageClasses.Known {
		for _, sc := range facts.StorageClasses.Value {
			if slices.Contains(def.Provisioners, sc.Provisioner) {
				return true
			}
		}
	}
	if facts.Workloads.Known {
		for _, w := range def.Workloads {
			if len(lookWorkload(def, w, facts).matches) > 0 {
				return true
			}
		}
	}
	return false
}

// DefaultStorage returns the StorageClass Kubernetes gives a
// PersistentVolumeClaim that names none, its provisioner and the catalog
// storage layer that provisioner belongs to (Backend "" when not in the
// catalog), by Kubernetes' own rule (kubernetes pkg/volume/util/
// storageclass.go, GetDefaultClass and IsDefaultAnnotation, used by the
// DefaultStorageClass admission plugin and the PersistentVolume controller):
//
//   - a class is default when its storageclass.kubernetes.io/is-default-class
//     or storageclass.beta.kubernetes.io/is-default-class annotation is
//     exactly "true" (StorageClass.Default, as the prober reads it);
//   - of several defaults, since Kubernetes 1.26 the newest by
//     creationTimestamp wins, and of those created in the same second (the
//     timestamp's precision) the first by name; before 1.26 the admission
//     plugin refused every claim without a class ("2 default StorageClasses
//     were found"), so there is no default that works (Class "").
//
// server is the API server's version, needed only when several classes are
// default. It returns Storage unknown, with the reason, when StorageClasses
// could not be read, or when several are default and the rule cannot be
// applied (a creationTimestamp missing, the server version unknown or not a
// version) — never a pick by name alone; known with an empty Class when no
// class is default. With several defaults, OtherDefaults names the others in
// Kubernetes' order and Warning names them all and the rule applied.
func DefaultStorage(facts topology.ClusterFacts, server topology.Fact[string]) topology.Fact[topology.StorageState] {
	if !facts.StorageClasses.Known {
		return topology.UnknownFact[topology.StorageState](facts.StorageClasses.Why().Prefixed("StorageClasses: "))
	}
	var defaults []topology.StorageClass
	for _, sc := range facts.StorageClasses.Value {
		if sc.Default {
			defaults = append(defaults, sc)
		}
	}
	if len(defaults) == 0 {
		return topology.KnownFact(topology.StorageState{})
	}
	if len(defaults) == 1 {
		d := defaults[0]
		return topology.KnownFact(topology.StorageState{Class: d.Name, Provisioner: d.Provisioner, Backend: topology.BackendForProvisioner(d.Provisioner)})
	}

	sort.Slice(defaults, func(i, j int) bool { return defaults[i].Name < defaults[j].Name })
	names := make([]string, len(defaults))
	for i, d := range defaults {
		names[i] = d.Name
	}
	several := fmt.Sprintf("%d StorageClasses are marked default (%s)", len(defaults), strings.Join(names, ", "))
	for _, d := range defaults {
		if d.Created.IsZero() {
			return topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonNotRead, several+", and the creation time of "+d.Name+" was not read: Kubernetes uses the newest, which nestor cannot tell"))
		}
	}
	if !server.Known {
		return topology.UnknownFact[topology.StorageState](server.Why().Prefixed(several + ", and which one Kubernetes uses depends on its version (the newest since 1.26, none before), which is unknown: "))
	}
	v := kube.ParseVersion(server.Value)
	if !v.Known {
		return topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonUnrecognised, fmt.Sprintf("%s, and which one Kubernetes uses depends on its version (the newest since 1.26, none before), but the server version %q is not a version (%s)", several, server.Value, v.Reason)))
	}

	// GetDefaultClass: newest first, then by name.
	sort.SliceStable(defaults, func(i, j int) bool { return defaults[i].Created.After(defaults[j].Created) })
	var listed []string
	for _, d := range defaults {
		listed = append(listed, fmt.Sprintf("%s (%s, created %s)", d.Name, d.Provisioner, d.Created.UTC().Format(time.RFC3339)))
	}
	all := fmt.Sprintf("%d StorageClasses are marked default: %s", len(defaults), strings.Join(listed, ", "))

	if kube.CompareMinor(v, kube.Version{Known: true, Major: 1, Minor: 26}) < 0 {
		return topology.KnownFact(topology.StorageState{
			OtherDefaults: names,
			Warning: fmt.Sprintf("%s; Kubernetes before 1.26 (this server is %s) then refuses every PersistentVolumeClaim that names no class: keep one default and unmark the others",
				all, server.Value),
		})
	}
	first := defaults[0]
	st := topology.StorageState{Class: first.Name, Provisioner: first.Provisioner, Backend: topology.BackendForProvisioner(first.Provisioner)}
	for _, d := range defaults[1:] {
		st.OtherDefaults = append(st.OtherDefaults, d.Name)
	}
	rule := "Kubernetes uses the newest, " + first.Name
	if tied := sameSecond(defaults); len(tied) > 1 {
		rule = fmt.Sprintf("the newest, %s, were created in the same second, and Kubernetes then uses the first by name, %s", strings.Join(tied, " and "), first.Name)
	}
	st.Warning = fmt.Sprintf("%s; %s (since 1.26; kubernetes pkg/volume/util GetDefaultClass): unmark the others", all, rule)
	return topology.KnownFact(st)
}

// sameSecond returns the names of the classes created at the same time as
// the first of defaults (sorted newest first, then by name).
func sameSecond(defaults []topology.StorageClass) []string {
	var out []string
	for _, d := range defaults {
		if d.Created.Equal(defaults[0].Created) {
			out = append(out, d.Name)
		}
	}
	return out
}

// judgeLayers returns what Observed.Layers holds for t: one LayerState per
// declared layer, in declaration order (JudgeLayer with
// declared=true: its workloads and its own status resources; a ref that is
// in neither the catalog nor has detect: is Unknown, which Parse never lets
// through), then the undeclared catalog layers (undeclared); and why the search for
// undeclared layers is incomplete (its code and words; the zero Why when
// it is not).
func judgeLayers(t *topology.Topology, facts topology.ClusterFacts) ([]topology.LayerState, topology.Why) {
	out := make([]topology.LayerState, 0, len(t.Layers))
	for _, ref := range t.Layers {
		def, ok := topology.LayerDefFor(ref)
		if !ok {
			out = append(out, topology.LayerState{Name: ref.Name, Declared: true, Health: topology.Unknown, Reason: "not in the layer catalog and no detect:"})
			continue
		}
		out = append(out, judged(JudgeLayer(def, facts, facts.Status, true)))
	}
	return append(out, undeclared(t, facts)...), undeclaredUnread(facts)
}

// judged is a layer's state with its detail and status kept: Detail is
// everything the workloads' judgement saw, one item each.
func judged(j LayerJudgement) topology.LayerState {
	st := j.State
	st.Detail = j.Workloads.Detail
	if j.Status.Health != "" || len(j.Status.Resources) > 0 {
		v := j.Status
		st.Status = &v
	}
	return st
}

// undeclaredUnread says why undeclared could not look at every sign: the
// CRD groups, the StorageClasses, or the workloads could not be read.
func undeclaredUnread(facts topology.ClusterFacts) topology.Why {
	var why []string
	var code topology.ReasonCode
	if !facts.CRDGroups.Known {
		why = append(why, "CRDs: "+topology.OrNotRead(facts.CRDGroups.Reason))
		code = facts.CRDGroups.Why().Code
	}
	if !facts.StorageClasses.Known {
		why = append(why, "StorageClasses: "+topology.OrNotRead(facts.StorageClasses.Reason))
		if code == "" {
			code = facts.StorageClasses.Why().Code
		}
	}
	return topology.Because(code, strings.Join(why, "; "))
}
