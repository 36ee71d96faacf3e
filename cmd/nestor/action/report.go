package action

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// ReportFormatVersion is the version of preview's JSON document; it is
// bumped when a field changes meaning or is removed: 2 since every claim
// (a step, a finding, an unknown, a waiting object) carries a typed
// subject, and an unknown its reason code.
const ReportFormatVersion = 2

// Report is preview's model: the JSON document and the source of the human
// view, so the two never disagree. README.md documents its fields.
type Report struct {
	FormatVersion int `json:"format_version"`
	// AsOf is the day the support calendar was judged at (YYYY-MM-DD).
	AsOf    string             `json:"as_of"`
	Stack   StackInfo          `json:"stack"`
	Target  *TargetInfo        `json:"target"`
	Desired Desired            `json:"desired"`
	Actual  *topology.Observed `json:"actual"`
	Plan    topology.Plan      `json:"plan"`
	Summary Summary            `json:"summary"`
	// Upgrade is what an upgrade report was due for (the minors moved to,
	// the steps that drain nodes); nil when none was. Its findings are in
	// Plan.Findings.
	Upgrade *upgrade.UpgradeDue `json:"upgrade,omitempty"`
	// HardDate is the stack's next hard date (the earliest end of life of
	// its minor, upstream or at the provider) and the blockers before it;
	// nil when no calendar gives one.
	HardDate *upgrade.HardDate `json:"hard_date,omitempty"`
	// Support is where each minor the stack runs stands in the upstream
	// calendar at AsOf (kube.Calendar.Standing): the API server's, each
	// kubelet's, a managed cluster's and its pools', read by every view
	// and format through SupportOf (the JSON says it as the plan's support
	// findings).
	Support []kube.Support `json:"-"`

	// Topology is the stack's topology, for the positions of its keys in
	// the machine formats (nil for a report not built by NewReport).
	Topology *topology.Topology `json:"-"`

	// day is AsOf as a time (Day): that date's midnight, UTC.
	day time.Time
}

// Day is the day r was judged at, AsOf as a time: what a view compares a
// date of the cluster with (a commitment's end). Zero for a report not
// built by NewReport.
func (r *Report) Day() time.Time { return r.day }

// StackInfo names the stack and its file.
type StackInfo struct {
	Name       string              `json:"name"`
	File       string              `json:"file"`
	TargetKind topology.TargetKind `json:"target_kind"`
}

// TargetInfo is where ACTUAL was read: endpoint, context, kubeconfig files
// and the rule that chose them. For a lima stack it is the bench kubeconfig.
type TargetInfo struct {
	Endpoint         string   `json:"endpoint,omitempty"`
	Context          string   `json:"context,omitempty"`
	Kubeconfig       []string `json:"kubeconfig"`
	Source           string   `json:"source"`
	SourceDetail     string   `json:"source_detail,omitempty"`
	DeclaredEndpoint string   `json:"declared_endpoint,omitempty"`
	EndpointMatches  *bool    `json:"endpoint_matches,omitempty"`
	// Provider is where a kapsule stack's cluster was read: the provider's
	// API and the credentials' source (the access key masked).
	Provider *probes.Provider `json:"provider,omitempty"`
}

// Desired is the topology's declaration.
type Desired struct {
	TargetKind   topology.TargetKind `json:"target_kind"`
	Kubernetes   string              `json:"kubernetes_version,omitempty"`
	Nodes        []topology.Node     `json:"nodes"`
	Phases       []string            `json:"phases"`
	Layers       []string            `json:"layers"`
	Backend      string              `json:"backend,omitempty"`
	BackendLayer string              `json:"backend_layer,omitempty"`
	// Pools and AutoUpgrade are a kapsule stack's.
	Pools       []topology.Pool `json:"pools,omitempty"`
	AutoUpgrade *bool           `json:"auto_upgrade,omitempty"`
}

// DeclaresPools reports whether the stack declares its machines as a
// provider's pools (pools:) rather than as nodes (nodes:): the views count
// and locate them by what was declared, not by the target kind.
func (d Desired) DeclaresPools() bool { return len(d.Pools) > 0 }

// Summary counts the plan: Changes are steps that would change the cluster;
// Undeclared are information; Unknown counts the parts of ACTUAL not read.
type Summary struct {
	Changes    int            `json:"changes"`
	ByKind     map[string]int `json:"by_kind"`
	Undeclared int            `json:"undeclared"`
	Unknown    int            `json:"unknown"`
	// Waiting counts the managed objects the provider is moving (kapsule).
	Waiting int  `json:"waiting"`
	InSync  bool `json:"in_sync"`
}

// ByKindText is the changes by step kind, sorted: "1 install, 2 repair"
// ("" without changes), the one wording of the summary line in every view
// and format.
func (s Summary) ByKindText() string {
	kinds := make([]string, 0, len(s.ByKind))
	for k := range s.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", s.ByKind[k], k))
	}
	return strings.Join(parts, ", ")
}

// PlanLine is the summary line's counts, as every view and format words
// them, the way Terraform's "Plan:" line does: "Plan: 5 to change (1
// repair, 3 upgrade-node), 2 undeclared, 1 unknown." — with the objects
// the provider is moving ("1 waiting") after the changes when a managed
// cluster's provider was part of the read (Actual.Kapsule).
func (r *Report) PlanLine() string {
	s := r.Summary
	line := fmt.Sprintf("Plan: %d to change", s.Changes)
	if kinds := s.ByKindText(); kinds != "" {
		line += " (" + kinds + ")"
	}
	if r.Actual != nil && r.Actual.Kapsule != nil {
		line += fmt.Sprintf(", %d waiting", s.Waiting)
	}
	return line + fmt.Sprintf(", %d undeclared, %d unknown.", s.Undeclared, s.Unknown)
}

// NewReport builds preview's model from the opened target op and the
// observation obs: the target line, DESIRED from the topology, ACTUAL as
// read, the plan (plan.Build, its calendar judged at asOf) and its
// summary; k is the stack's target kind (its phases and plan rules).
func NewReport(k probes.Kind, op *probes.Opened, obs *topology.Observed, asOf time.Time) *Report {
	t := op.Topology
	if obs.Layers == nil {
		obs.Layers = []topology.LayerState{}
	}
	r := &Report{
		FormatVersion: ReportFormatVersion,
		AsOf:          asOf.Format(time.DateOnly),
		day:           kube.DateOf(asOf),
		Stack:         StackInfo{Name: t.Name, File: t.Path, TargetKind: t.TargetKind},
		Actual:        obs,
		Topology:      t,
	}
	switch {
	case op.Kubeconfig.Source == probes.SourceBench:
		r.Target = &TargetInfo{Kubeconfig: op.Kubeconfig.Paths, Source: string(probes.SourceBench)}
	case op.Target != nil:
		r.Target = NewTargetInfo(t, op.Target, op.Check)
	}
	if pv := op.Provider; pv != nil {
		if r.Target == nil {
			r.Target = &TargetInfo{Kubeconfig: []string{}, Source: string(op.Kubeconfig.Source), SourceDetail: op.Kubeconfig.Detail, DeclaredEndpoint: t.Endpoint}
		}
		p := *pv
		r.Target.Provider = &p
	}
	r.Desired = Desired{TargetKind: t.TargetKind, Kubernetes: t.Kubernetes.Version, Nodes: t.Nodes, Backend: t.Backend, Pools: t.Pools, AutoUpgrade: t.Kubernetes.AutoUpgrade}
	if r.Desired.Nodes == nil {
		r.Desired.Nodes = []topology.Node{}
	}
	if bl, ok := topology.BackendLayer(t.Backend); ok {
		r.Desired.BackendLayer = bl
	}
	for _, p := range plan.Phases(t, k) {
		r.Desired.Phases = append(r.Desired.Phases, p.Name)
	}
	r.Desired.Layers = []string{}
	for _, l := range t.Layers {
		r.Desired.Layers = append(r.Desired.Layers, l.Name)
	}
	r.Plan = plan.Build(t, obs, k, plan.Options{AsOf: asOf})
	if r.Plan.Steps == nil {
		r.Plan.Steps = []topology.Step{}
	}
	if r.Plan.Unknowns == nil {
		r.Plan.Unknowns = []topology.UnknownPart{}
	}
	s := Summary{ByKind: map[string]int{}, Changes: r.Plan.Changes()}
	for _, st := range r.Plan.Steps {
		if st.IsChange() {
			s.ByKind[string(st.Kind)]++
		} else {
			s.Undeclared++
		}
	}
	s.Unknown = len(r.Plan.Unknowns)
	s.Waiting = len(r.Plan.Waiting)
	s.InSync = r.Plan.Outcome() == topology.OutcomeInSync
	r.Summary = s
	r.Support = minorsSupport(obs, asOf)
	return r
}

// minorsSupport is where each minor obs shows running stands in the
// upstream calendar at asOf, each minor once: the API server's and the
// kubelets' (Observed.Versions), the minors in use as the calendar
// findings count them (topology.ObservedMinors: a managed cluster's and
// its pools'), and the cluster's version (Observed.ClusterVersion).
func minorsSupport(obs *topology.Observed, asOf time.Time) []kube.Support {
	var minors []kube.Version
	if v := obs.Versions; v.Known {
		minors = append(minors, v.Value.APIServer)
		if k := v.Value.Kubelets; k.Known {
			for _, g := range k.Value {
				minors = append(minors, g.Version)
			}
		}
	}
	runs, _ := topology.ObservedMinors(obs)
	for _, m := range runs {
		minors = append(minors, m.Version)
	}
	minors = append(minors, obs.ClusterVersion())
	cal := kube.UpstreamCalendar()
	out := []kube.Support{}
	for _, m := range minors {
		if !m.Known || slices.ContainsFunc(out, func(s kube.Support) bool { return kube.CompareMinor(s.Minor, m) == 0 }) {
			continue
		}
		out = append(out, cal.SupportOf(m, asOf))
	}
	return out
}

// SupportOf returns where v's minor stands in the upstream calendar, as
// the report judged it at AsOf; false when the report judged no such minor
// (none of the stack's reads runs it).
func (r *Report) SupportOf(v kube.Version) (kube.Support, bool) {
	for _, s := range r.Support {
		if kube.CompareMinor(s.Minor, v) == 0 {
			return s, true
		}
	}
	return kube.Support{}, false
}

// NewTargetInfo is the report's target line: where ACTUAL was read and how
// its endpoint compares with the topology's endpoint:.
func NewTargetInfo(t *topology.Topology, target *probes.Target, check probes.EndpointCheck) *TargetInfo {
	ti := &TargetInfo{
		Endpoint: target.Endpoint, Context: target.Context,
		Kubeconfig: target.Kubeconfig.Paths, Source: string(target.Kubeconfig.Source),
		SourceDetail: target.Kubeconfig.Detail, DeclaredEndpoint: t.Endpoint,
	}
	if check.Declared != "" && check.Err == nil {
		m := check.Matches
		ti.EndpointMatches = &m
	}
	return ti
}

// Outcome is the one word for r's plan (topology.Plan.Outcome): in sync,
// changes, waiting, unknown or no target.
func (r *Report) Outcome() topology.Outcome { return r.Plan.Outcome() }

// ExitCode is preview's code for r with --detailed-exitcode
// (DetailedExitCode of its Outcome): 1 when any part of ACTUAL is unknown or
// nothing was read, 2 changes or waiting, 0 in sync. Findings never change
// it (see FailOn).
func (r *Report) ExitCode() int { return DetailedExitCode(r.Outcome()) }

// DetailedExitCode is the --detailed-exitcode of an outcome, for preview and
// fleet alike: 0 in sync; 2 changes, or objects the provider is moving
// (waiting is not in sync, and not an error); 1 for anything that could
// not be judged (unknown, no target, and the fleet's refused, unreachable,
// invalid).
func DetailedExitCode(s topology.Outcome) int {
	switch s {
	case topology.OutcomeInSync:
		return ExitOK
	case topology.OutcomeChanges, topology.OutcomeWaiting:
		return ExitChanges
	}
	return ExitError
}

// FailOn is preview's --fail-on: ExitFindings when r has a finding of
// severity min or worse, else ExitOK; min "" never fails.
func (r *Report) FailOn(min topology.Severity) int {
	if min != "" && r.Plan.FindingsAtLeast(min) > 0 {
		return ExitFindings
	}
	return ExitOK
}

// Judged reports whether r rests on a read of its target: false when
// nothing was read (topology.Observed.NothingRead: no target, or every
// read failed — a lima bench without limactl nor its kubeconfig, a
// provider's API that did not answer) and the plan only assumes what it
// could not see. What is not judged is said by no count, no gauge and no
// passing test.
func (r *Report) Judged() bool {
	return !r.Actual.NothingRead() && !r.Plan.Unverified
}

// CountText is a count of Report.Counts as the tables print it: "-" when
// none was judged.
func CountText(n *int) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

// Counts are the plan's changes, waiting objects and unknown parts as every
// view and format says them (the fleet's columns, its JSON, Markdown's
// table, Prometheus' gauges): nil when nothing was read (no target), for
// the plan then assumes an empty cluster and its counts are no judgement.
func (r *Report) Counts() (changes, waiting, unknown *int) {
	if !r.Judged() {
		return nil, nil, nil
	}
	c, w, u := r.Summary.Changes, r.Summary.Waiting, r.Summary.Unknown
	return &c, &w, &u
}

// LayerCounts counts the declared layers by state as read
// (topology.LayerHealths): every declared layer in exactly one state, one
// the read holds no state of (or a state outside the list) as unknown,
// never left out. Prometheus' nestor_layers reads it.
func (r *Report) LayerCounts() map[topology.Health]int {
	state := map[string]topology.Health{}
	if r.Actual != nil {
		for _, l := range r.Actual.Layers {
			if _, dup := state[l.Name]; l.Declared && !dup {
				state[l.Name] = l.Health
			}
		}
	}
	out := map[topology.Health]int{}
	for _, name := range r.Desired.Layers {
		h, ok := state[name]
		if !ok || !slices.Contains(topology.LayerHealths, h) {
			h = topology.Unknown
		}
		out[h]++
	}
	return out
}

// ClusterVersion is the cluster's version the report read
// (topology.Observed.ClusterVersion: a managed cluster's as its provider
// reports it, else the API server's); false when it was not read.
func (r *Report) ClusterVersion() (kube.Version, bool) {
	v := r.Actual.ClusterVersion()
	return v, v.Known
}

// GroupUnknowns says each reason once: the plan's unknowns that share
// their reason (code and words) become one line naming every subject, in
// the order they came ("server version, nodes and layer flannel: no bench
// kubeconfig at …"); an unknown whose reason no other shares is kept as it
// is. The JSON keeps every unknown apart.
func GroupUnknowns(unknowns []topology.UnknownPart) []string {
	type group struct {
		parts []string
		why   topology.Why
	}
	var order []*group
	byReason := map[topology.Why]*group{}
	for _, u := range unknowns {
		why := topology.Because(u.Code, u.Message)
		if g, seen := byReason[why]; seen {
			g.parts = append(g.parts, u.Subject.Text)
			continue
		}
		g := &group{parts: []string{u.Subject.Text}, why: why}
		byReason[why] = g
		order = append(order, g)
	}
	out := make([]string, 0, len(order))
	for _, g := range order {
		out = append(out, kube.JoinAnd(g.parts)+": "+g.why.Text)
	}
	return out
}
