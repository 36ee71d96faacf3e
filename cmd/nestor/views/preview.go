// Package views draws the models of nestor's commands (package action) for
// people: preview's DESIRED, ACTUAL and PLAN, discover's report, the fleet's
// table, next's answer, env's exports, rbac's commented YAML, the stacks'
// list and show, the build, and the guard's view of the target. Each view
// is a function of its model and a writer, in colour when asked (the
// palette); the tables' layout is table.go's.
package views

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// palette colours human output; the zero palette prints plain text.
type palette struct{ on bool }

func newPalette(on bool) palette { return palette{on: on} }

func (p palette) wrap(code, s string) string {
	if !p.on {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
func (p palette) bold(s string) string   { return p.wrap("1", s) }
func (p palette) red(s string) string    { return p.wrap("31", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) dim(s string) string    { return p.wrap("2", s) }

// renderPreview draws the human view of r: DESIRED, ACTUAL, PLAN and a
// summary line, all from the same action.Report the JSON is made of.
func renderPreview(w io.Writer, r *action.Report, p palette, detailed bool, suggest func(string) string) {
	fmt.Fprintf(w, "Stack %s (%s) — %s\n", p.bold(r.Stack.Name), r.Stack.TargetKind, r.Stack.File)
	renderTargetLine(w, r, p)
	fmt.Fprintln(w)
	renderDesired(w, r, p)
	fmt.Fprintln(w)
	renderActual(w, r, p, detailed, suggest)
	fmt.Fprintln(w)
	renderPlan(w, r, p, true)
	if kubeForbidden(r) {
		fmt.Fprintf(w, "%s\n", p.dim("hint: the API server forbade some reads: `"+suggest("rbac")+"` prints the read-only role that allows exactly what preview reads (`"+suggest("rbac")+" --bind user:NAME | kubectl apply -f -` grants it)"))
	}
}

// kubeForbidden reports whether a part of r's ACTUAL is unknown because
// the Kubernetes API server refused the read (reason code forbidden: a
// node list, a layer's CRDs…): the role `nestor rbac` prints cures it. A
// managed provider's refusal (Subject.OfProvider) is not the cluster's
// RBAC, and does not count.
func kubeForbidden(r *action.Report) bool {
	for _, u := range r.Plan.Unknowns {
		if u.Code == topology.ReasonForbidden && !u.Subject.OfProvider() {
			return true
		}
	}
	return false
}

func renderTargetLine(w io.Writer, r *action.Report, p palette) {
	t := r.Target
	switch {
	case r.Actual.NoTarget:
		fmt.Fprintf(w, "Target: %s\n", p.red("NONE — nothing was read"))
	case t == nil:
	case t.Provider != nil:
		renderProviderTarget(w, r, p)
	case t.Source == string(probes.SourceBench):
		fmt.Fprintf(w, "Target: the Lima bench (limactl) and its kubeconfig %s\n", strings.Join(t.Kubeconfig, ":"))
	default:
		src := t.SourceDetail
		if src == "" {
			src = t.Source
		}
		fmt.Fprintf(w, "Target: %s  context %s  kubeconfig %s (from %s)\n", t.Endpoint, t.Context, strings.Join(t.Kubeconfig, ":"), src)
		switch {
		case t.DeclaredEndpoint == "":
			fmt.Fprintf(w, "        %s\n", p.yellow("warning: the topology declares no endpoint:, so this target was confirmed by hand only"))
		case t.EndpointMatches != nil && !*t.EndpointMatches:
			fmt.Fprintf(w, "        %s\n", p.yellow("warning: the topology declares endpoint "+t.DeclaredEndpoint))
		}
	}
}

func renderDesired(w io.Writer, r *action.Report, p palette) {
	d := r.Desired
	fmt.Fprintln(w, p.bold("DESIRED")+p.dim("  (from the topology)"))
	tw := newTable("  ")
	tw.row("target kind", string(d.TargetKind))
	if d.Kubernetes != "" {
		tw.row("kubernetes", d.Kubernetes)
	}
	nodes := make([]string, 0, len(d.Nodes))
	for _, n := range d.Nodes {
		s := n.Name
		if n.Role == topology.RoleControlPlane {
			s += " (control-plane)"
		}
		nodes = append(nodes, s)
	}
	if len(d.Pools) > 0 {
		renderPoolsDesired(tw, d)
	} else {
		tw.row("nodes", fmt.Sprintf("%d: %s", len(d.Nodes), abbreviate(nodes, 16)))
	}
	tw.row("phases", strings.Join(d.Phases, " → "))
	if d.Backend != "" {
		b := d.Backend
		if d.BackendLayer != "" && d.BackendLayer != d.Backend {
			b += " (" + d.BackendLayer + ")"
		}
		tw.row("backend", b)
	}
	tw.write(w)
}

func unknownText(p palette, reason string) string {
	return p.yellow("unknown") + " (" + reason + ")"
}

// saidOnce says each reason of ACTUAL once: the first part unknown for a
// reason prints it, the next ones unknown for the same code and words
// name that part instead ("unknown (as server)"), so one cause that kept
// the whole cluster from being read is one line, not one per part.
type saidOnce struct {
	p     palette
	first map[topology.Why]string
}

func newSaidOnce(p palette) *saidOnce { return &saidOnce{p: p, first: map[topology.Why]string{}} }

// reason is the words of why, or "as PART" when an earlier part said
// them; part is the name the view gives the part now.
func (s *saidOnce) reason(part string, why topology.Why) string {
	if prev, ok := s.first[why]; ok && why.Text != "" {
		return "as " + prev
	}
	s.first[why] = part
	return why.Text
}

// unknown is unknownText of why, said once (reason).
func (s *saidOnce) unknown(part string, why topology.Why) string {
	return unknownText(s.p, s.reason(part, why))
}

func renderActual(w io.Writer, r *action.Report, p palette, detailed bool, suggest func(string) string) {
	o := r.Actual
	fmt.Fprintln(w, p.bold("ACTUAL")+p.dim("  (read now, not stored)"))
	if o.NoTarget {
		fmt.Fprintf(w, "  %s\n", p.red("NO TARGET: nothing was read, so nothing in PLAN is verified."))
		fmt.Fprintf(w, "  %s\n", o.NoTargetReason)
		return
	}
	renderProviderActual(w, r, p)
	once := newSaidOnce(p) // server, nodes, layers, storage: each reason said once
	if o.InClusterUnread == "" {
		// The cluster's own API was read (or tried): its parts, each
		// known or unknown with its reason. Left unread on purpose, it is
		// said once in the provider's block instead.
		tw := newTable("  ")
		renderVMs(tw, o, p)
		renderServerAndNodes(tw, o, p, once)
		tw.write(w)
		if o.Nodes.Known && len(o.Nodes.Value) > 0 {
			renderNodes(w, o.Nodes.Value, p)
		}
		renderVersions(w, r, p)
	}
	renderLayers(w, o.Layers, p, detailed, once)
	if o.InClusterUnread == "" {
		renderStorage(w, o.Storage, p, once)
		renderProviderObjects(w, o.ProviderObjects, p, detailed, once)
	}
	if r.Target != nil && r.Target.Source == string(probes.SourceBench) && !o.Nodes.Known {
		fmt.Fprintf(w, "  %s\n", p.dim("hint: no bench cluster was read (not bootstrapped yet, or lima.kubeconfig: names another file); `"+suggest("next")+"` says what runs next, `eval \"$("+suggest("env")+")\"` exports the bench kubeconfig once it exists"))
	}
}

// renderVMs draws the Lima instances (lima stacks only), a Broken one with
// limactl's errors, and the entries limactl lists that are no instance.
func renderVMs(tw *table, o *topology.Observed, p palette) {
	if o.VMs == nil {
		return
	}
	if !o.VMs.Known {
		tw.row("VMs", unknownText(p, o.VMs.Reason))
		return
	}
	if len(o.VMs.Value) == 0 {
		tw.row("VMs", "none (limactl lists no instance)")
	}
	for _, vm := range o.VMs.Value {
		st := vm.Status
		switch {
		case st == topology.VMRunning:
			st = p.green(st)
		case st == "":
			st = p.yellow("unknown") + " (limactl printed no status)"
		default:
			st = p.red(st)
		}
		if len(vm.Errors) > 0 {
			st += "  (" + strings.Join(vm.Errors, "; ") + ")"
		}
		tw.row("VM "+vm.Name, st)
	}
	for _, e := range o.NotVMs {
		tw.row("not a VM "+e.Name, p.dim("skipped: limactl lists it, but it is no Lima instance ("+strings.Join(e.Errors, "; ")+")"))
	}
}

// renderServerAndNodes draws the server version and the node counts.
func renderServerAndNodes(tw *table, o *topology.Observed, p palette, once *saidOnce) {
	if o.ServerVersion.Known {
		tw.row("server", o.ServerVersion.Value)
	} else {
		tw.row("server", once.unknown("server", o.ServerVersion.Why()))
	}
	if !o.Nodes.Known {
		tw.row("nodes", once.unknown("nodes", o.Nodes.Why()))
		return
	}
	ready := topology.CountReady(o.Nodes.Value)
	tw.row("nodes", fmt.Sprintf("%d registered, %d Ready", len(o.Nodes.Value), ready))
}

// renderLayers draws each layer's health and why.
func renderLayers(w io.Writer, layers []topology.LayerState, p palette, detailed bool, once *saidOnce) {
	if len(layers) == 0 {
		return
	}
	fmt.Fprintln(w, "  layers")
	tw := newTable("    ")
	var details [][]string
	for _, l := range layers {
		h := healthText(p, l.Health)
		name := l.Name
		if !l.Declared {
			name += " (undeclared)"
		}
		reason := l.Reason
		if l.Health == topology.Unknown && l.Code != "" {
			reason = once.reason("layer "+l.Name, topology.Because(l.Code, l.Reason))
		}
		if reason != "" {
			reason = "(" + reason + ")"
		}
		tw.row(name, h, reason)
		if detailed {
			details = append(details, layerDetail(l, p))
		}
	}
	if !detailed {
		tw.write(w)
		return
	}
	var b strings.Builder
	tw.write(&b)
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		fmt.Fprintln(w, line)
		for _, d := range details[i] {
			fmt.Fprintf(w, "        %s\n", d)
		}
	}
}

// layerDetail is what --detailed prints under a layer's line: what its
// workloads, CRD groups and StorageClasses showed, one item a line, then
// each of its status resources — unread with why, or each object and what
// its status says.
func layerDetail(l topology.LayerState, p palette) []string {
	var out []string
	for _, item := range l.Detail {
		out = append(out, p.dim(item))
	}
	if l.Status == nil {
		return out
	}
	for _, res := range l.Status.Resources {
		switch {
		case !res.Known:
			out = append(out, res.Kind+": "+unknownText(p, res.Reason))
		case len(res.Objects) == 0:
			out = append(out, res.Kind+": none")
		}
		for _, o := range res.Objects {
			name := o.Name
			if o.Namespace != "" {
				name = o.Namespace + "/" + o.Name
			}
			line := res.Kind + " " + name + ": " + healthText(p, o.Health)
			if o.Says != "" {
				line += " — " + o.Says
			}
			out = append(out, line)
		}
	}
	return out
}

// healthText is a layer's or an object's health word in its colour:
// healthy green, degraded red, absent, unknown, suspended and progressing
// yellow.
func healthText(p palette, h topology.Health) string {
	switch h {
	case topology.Healthy:
		return p.green(string(h))
	case topology.Degraded:
		return p.red(string(h))
	case topology.Absent, topology.Unknown, topology.Suspended, topology.Progressing:
		return p.yellow(string(h))
	}
	return string(h)
}

// renderStorage draws the default StorageClass and the backend it means.
func renderStorage(w io.Writer, st topology.Fact[topology.StorageState], p palette, once *saidOnce) {
	if !st.Known {
		fmt.Fprintf(w, "  storage     %s\n", once.unknown("storage", st.Why()))
		return
	}
	s := st.Value
	switch {
	case s.Class == "":
		fmt.Fprintf(w, "  storage     no default StorageClass\n")
	default:
		b := s.Backend
		if b == "" {
			b = "not a catalog layer"
		}
		fmt.Fprintf(w, "  storage     default StorageClass %s (%s → %s)\n", s.Class, s.Provisioner, b)
	}
	if s.Warning != "" {
		fmt.Fprintf(w, "              %s\n", p.yellow("warning: "+s.Warning))
	}
}

func renderNodes(w io.Writer, nodes []topology.NodeState, p palette) {
	renderNodeTable(w, "    ", nodes, p)
}

// renderNodeTable is the one node table (preview's ACTUAL, discover's
// NODES), each row starting with indent: NAME, READY (readyCell), ROLES,
// KUBELET, INTERNAL-IP, then why a node is not Ready; sorted by name, the
// first 50 drawn and the others counted.
func renderNodeTable(w io.Writer, indent string, nodes []topology.NodeState, p palette) {
	const max = 50
	tw := newTable(indent)
	tw.row("NAME", "READY", "ROLES", "KUBELET", "INTERNAL-IP")
	sorted := append([]topology.NodeState(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i, n := range sorted {
		if i == max {
			tw.row(fmt.Sprintf("… %d more", len(sorted)-max))
			break
		}
		ready, why := readyCell(n, p)
		roles := strings.Join(n.Roles, ",")
		if roles == "" {
			roles = "<none>"
		}
		cells := []string{n.Name, ready, roles, cmp.Or(n.KubeletVersion, "<none>"), cmp.Or(n.InternalIP, "<none>")}
		if why != "" {
			cells = append(cells, why)
		}
		tw.row(cells...)
	}
	tw.write(w)
}

// readyCell returns a node's READY cell and, for a node that is not
// Ready, the cluster's reason and message on one line ("" otherwise). The
// cell is NodeState.ReadyCondition, then SchedulingDisabled for a cordoned
// node, as kubectl writes it.
func readyCell(n topology.NodeState, p palette) (cell, why string) {
	cell = n.ReadyCondition()
	if n.Ready {
		cell = p.green(cell)
	} else {
		cell = p.red(cell)
		why = n.ReadyDetail()
	}
	if n.Unschedulable {
		cell += "," + p.yellow("SchedulingDisabled")
	}
	return cell, why
}

// renderPlan draws PLAN: the steps with the findings placed under them, the
// unknowns (each reason once), the waiting objects and the summary line.
// With actualShown (preview, which drew ACTUAL above) the unknown of a
// stack with no target points at ACTUAL's reason instead of repeating it.
func renderPlan(w io.Writer, r *action.Report, p palette, actualShown bool) {
	title := p.bold("PLAN")
	if r.Plan.Unverified {
		title += "  " + p.red("UNVERIFIED: assumes an empty cluster (nothing was read)")
	}
	fmt.Fprintln(w, title)
	// placed are the findings shown under the step they concern
	// (Finding.Step); the others are listed under FINDINGS.
	placed := map[int]bool{}
	// number is each step's number as printed, by its StepRef: a step
	// that needs another (Step.Needs) names it by that number.
	number := make(map[string]int, len(r.Plan.Steps))
	for i, s := range r.Plan.Steps {
		if _, dup := number[topology.StepRef(s)]; !dup {
			number[topology.StepRef(s)] = i + 1
		}
	}
	n := 0
	for _, s := range r.Plan.Steps {
		n++
		mark := "+"
		switch s.Kind {
		case topology.StepUndeclared:
			mark = "i"
		case topology.StepRepair, topology.StepRepairNode, topology.StepUpgrade, topology.StepUpgradeNode, topology.StepMigrateBackend, topology.StepStartVM,
			topology.StepUpdatePool, topology.StepUpgradePool, topology.StepReplaceNode, topology.StepUpdateCluster,
			topology.StepSetACL, topology.StepRenameCluster, topology.StepSetType:
			mark = "~"
		case topology.StepReplacePool:
			mark = "±"
		}
		fmt.Fprintf(w, "  %2d. %s %s %s  %s\n", n, mark, s.Kind, p.bold(s.Target), p.dim("("+s.Reason+")"))
		for _, need := range s.Needs {
			fmt.Fprintf(w, "        ↳ %s\n", p.dim(fmt.Sprintf("after %d. %s", number[need], need)))
		}
		ref := topology.StepRef(s)
		for i, f := range r.Plan.Findings {
			if f.Step != "" && f.Step == ref && !placed[i] {
				placed[i] = true
				writeFinding(w, p, f, "        ↳ ")
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  (no steps)")
	}
	unknowns := r.Plan.Unknowns
	if actualShown && r.Actual != nil && r.Actual.NoTarget {
		unknowns = append([]topology.UnknownPart(nil), unknowns...)
		for i, u := range unknowns {
			if u.Code == topology.ReasonNoTarget && u.Subject.Kind == topology.SubjectCluster {
				// ACTUAL's NO TARGET block says why, a few lines above.
				unknowns[i].Message = "no target was read, as ACTUAL says"
			}
		}
	}
	for _, u := range action.GroupUnknowns(unknowns) {
		fmt.Fprintf(w, "  ?  %s\n", unknownText(p, u))
	}
	renderWaiting(w, r, p)
	if r.Plan.Held != "" {
		fmt.Fprintf(w, "  …  %s %s\n", p.yellow("held:"), r.Plan.Held)
	}
	renderFindings(w, r, p, placed)
	fmt.Fprintln(w)
	fmt.Fprintln(w, summaryLine(r, p))
}

// renderVersions draws ACTUAL's versions part: the API server, the kubelets
// by version with their counts, and one support line per minor in use.
func renderVersions(w io.Writer, r *action.Report, p palette) {
	v := r.Actual.Versions
	if !v.Known {
		if r.Actual.ServerVersion.Known {
			fmt.Fprintf(w, "  versions    %s\n", unknownText(p, v.Reason))
		}
		return
	}
	fmt.Fprintf(w, "  versions    (support judged as of %s)\n", r.AsOf)
	tw := newTable("    ")
	tw.row("api server", v.Value.APIServer.Raw)
	minors := []kube.Version{v.Value.APIServer}
	if k := v.Value.Kubelets; k.Known {
		groups := make([]string, 0, len(k.Value))
		for _, g := range k.Value {
			groups = append(groups, fmt.Sprintf("%s ×%d", g.Version.Raw, g.Count))
			if g.Version.Known {
				minors = append(minors, g.Version)
			}
		}
		tw.row("kubelets", strings.Join(groups, ", "))
	} else {
		tw.row("kubelets", unknownText(p, k.Reason))
	}
	seen := map[string]bool{}
	for _, m := range minors {
		if seen[m.MinorString()] {
			continue
		}
		seen[m.MinorString()] = true
		text, _ := supportOf(r, m, false)
		tw.row(m.MinorString(), text)
	}
	tw.write(w)
}

// SupportText says where a minor stands in the upstream calendar, as s
// holds it (kube.Calendar.SupportOf, the rule the findings use):
// "supported upstream until 2027-10-28" (short: "until 2027-10-28"), "end
// of life upstream in N days, on …" (short: "EOL in N days"), "end of life
// upstream since …" (short: "EOL since …"), "older than this nestor's
// calendar: past its end of life" (short: "EOL"), "not in this nestor's
// calendar (as of …)" (short: "unknown"). An estimated date is marked
// "estimated" (short: "*"). s judged at no day gives the end-of-life date
// alone.
func SupportText(s kube.Support, short bool) string {
	text, _ := supportText(s, short)
	return text
}

// supportOf is SupportText of v's minor as r judged it, and whether the
// text rests on an estimated date; "not judged" when r judged no such
// minor.
func supportOf(r *action.Report, v kube.Version, short bool) (string, bool) {
	s, ok := r.SupportOf(v)
	if !ok {
		return "not judged", false
	}
	return supportText(s, short)
}

// supportText is SupportText and whether the text rests on an estimated
// date (the calendar's own flag, never read back from the words).
func supportText(s kube.Support, short bool) (string, bool) {
	e, days := s.Entry, s.Days
	pick := func(long, brief string) string {
		if short {
			return brief
		}
		return long
	}
	eol, mark := e.EndOfLife.Format(time.DateOnly), ""
	if e.Estimated {
		mark = pick(" (estimated)", "*")
		eol += mark
	}
	switch {
	case s.Standing == kube.StandingNewer || s.Standing == kube.StandingNoDate:
		return pick(fmt.Sprintf("not in this nestor's calendar (as of %s)", s.CalendarAsOf.Format(time.DateOnly)), "unknown"), false
	case s.Standing == kube.StandingOlder:
		return pick("older than this nestor's calendar: past its end of life", "EOL"), false
	case s.AsOf.IsZero():
		return pick("end of life upstream "+eol, "until "+eol), e.Estimated
	case s.Standing == kube.StandingEnded:
		return pick("end of life upstream since "+eol, "EOL since "+eol), e.Estimated
	case s.Standing == kube.StandingEndingSoon:
		return pick(fmt.Sprintf("end of life upstream on %s, in %d days", eol, days), fmt.Sprintf("EOL in %d days", days)+mark), e.Estimated
	}
	return pick("supported upstream until "+eol, "until "+eol), e.Estimated
}

// renderFindings lists the plan's findings not placed under a step, each
// with its severity (the provider's calendar findings are shown in ACTUAL's
// calendar block).
func renderFindings(w io.Writer, r *action.Report, p palette, placed map[int]bool) {
	var shown []topology.Finding
	for i, f := range r.Plan.Findings {
		if !isCalendar(f) && !placed[i] {
			shown = append(shown, f)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, p.bold("FINDINGS"))
	for _, f := range shown {
		writeFinding(w, p, f, "  ")
	}
}

// writeFinding writes one finding after indent: its severity, subject and
// message, then, on a line of its own, the source the claim rests on and
// its reach, when the finding names them.
func writeFinding(w io.Writer, p palette, f topology.Finding, indent string) {
	pad := strings.Repeat(" ", 7-len(f.Severity))
	fmt.Fprintf(w, "%s%s%s  %s: %s\n", indent, severityText(p, f.Severity), pad, f.Subject, f.Message)
	var from []string
	if f.Source != "" {
		from = append(from, "source: "+f.Source)
	}
	if f.Reach != "" {
		from = append(from, "reach: "+f.Reach)
	}
	if len(from) > 0 {
		fmt.Fprintf(w, "%s%s%s\n", strings.Repeat(" ", utf8.RuneCountInString(indent)), strings.Repeat(" ", 9), p.dim(strings.Join(from, "; ")))
	}
}

// summaryLine counts the plan in one line, as Terraform's "Plan:" line does.
func summaryLine(r *action.Report, p palette) string {
	line := r.PlanLine()
	switch r.Outcome() {
	case topology.OutcomeNoTarget:
		line += " " + p.red("UNVERIFIED: no target was read.")
	case topology.OutcomeUnknown:
		if !r.Judged() {
			line += " " + p.yellow("Not in sync: nothing could be read, so nothing is judged.")
		} else {
			line += " " + p.yellow("Not in sync: parts of ACTUAL are unknown.")
		}
	case topology.OutcomeWaiting:
		line += " " + p.yellow("Not in sync: the provider is still moving objects (waiting).")
	case topology.OutcomeInSync:
		line += " " + p.green("In sync.")
	}
	return line
}

// PreviewOptions choose how a report is drawn: in colour, and with the
// detail of every layer (preview --detailed).
type PreviewOptions struct {
	Color, Detailed bool
}

// Preview writes preview's human view of report r: DESIRED, ACTUAL, PLAN
// and the summary line, as o says (with o.Detailed every layer's detail
// under its line); suggest turns a nestor subcommand into the command line
// for this stack (action.Stack.Suggest).
func Preview(w io.Writer, r *action.Report, o PreviewOptions, suggest func(string) string) {
	renderPreview(w, r, newPalette(o.Color), o.Detailed, suggest)
}
