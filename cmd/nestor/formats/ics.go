package formats

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// ICSOptions are what the calendar says beside the reports.
type ICSOptions struct {
	// Stamp is when the calendar was made: every event's DTSTAMP (RFC
	// 5545 §3.8.7.2, UTC).
	Stamp time.Time
}

// The calendar's own names, stable: README.md ("-o ics") lists them.
const (
	// icsProductID is the calendar's PRODID (RFC 5545 §3.7.3).
	icsProductID = "-//nestor.dev//nestor//EN"
	// icsUIDDomain ends every event's UID (RFC 5545 §3.8.4.7 suggests
	// "@" and a domain of the producer).
	icsUIDDomain = "nestor.dev"
	// The X- properties (RFC 5545 §3.8.8.2): of the calendar, the day the
	// calendars were judged at and each thing no date could be given to;
	// of an event, the stack, the date's kind and subject its UID is made
	// of, and whether the date is an estimate.
	icsAsOf      = "X-NESTOR-AS-OF"
	icsUndated   = "X-NESTOR-UNDATED"
	icsStack     = "X-NESTOR-STACK"
	icsEvent     = "X-NESTOR-EVENT"
	icsSubject   = "X-NESTOR-SUBJECT"
	icsEstimated = "X-NESTOR-ESTIMATED"
)

// WriteICS writes the dates of d as one iCalendar (RFC 5545) calendar:
// an all-day event per dated day of each stack (see writeICS), named after
// the stack (a preview) or the fleet. A failure is a calendar without
// events, which says why in its X-NESTOR-UNDATED property.
func WriteICS(w io.Writer, d action.Documents, o ICSOptions) error {
	docs := d.Docs()
	switch d := d.(type) {
	case *action.FleetReport:
		return writeICS(w, "nestor fleet", d.AsOf, docs, o)
	case *action.Report:
		return writeICS(w, "nestor: "+d.Stack.Name, d.AsOf, docs, o)
	}
	name := "nestor"
	if docs[0].Name != "" {
		name += ": " + docs[0].Name
	}
	return writeICS(w, name, "", docs, o)
}

// ICSEvent is one event of -o ics: a stack's dated day (topology.StackDate)
// and its words.
type ICSEvent struct {
	Stack string
	Date  topology.StackDate
	// UID is "STACK/KIND/SUBJECT@nestor.dev": made of what the date is,
	// never of the date itself, so a date the provider moves updates the
	// same event of a subscribed calendar.
	UID         string
	Summary     string
	Description string
}

// ICSUID is the UID of stack's event of kind about subject (ICSEvent.UID).
func ICSUID(stack string, kind topology.DateKind, subject string) string {
	return stack + "/" + string(kind) + "/" + subject + "@" + icsUIDDomain
}

// ICSEvents returns report r's events, by date (then kind and subject), and what
// could not be dated: topology.StackDates of what was read, judged at the
// report's day. A report of which nothing was read, or whose day is not a
// date, has no event, and one undated part that says so.
func ICSEvents(r *action.Report) ([]ICSEvent, []topology.UndatedPart) {
	asOf, err := time.Parse(time.DateOnly, r.AsOf)
	switch {
	case r.Actual == nil:
		return nil, []topology.UndatedPart{{What: "the stack", Why: topology.Because(topology.ReasonNotRead, "nothing of it was read"), Unknown: true}}
	case err != nil:
		return nil, []topology.UndatedPart{{What: "the stack", Why: topology.Because(topology.ReasonFailed, fmt.Sprintf("the day it was judged at, %q, is not a date", r.AsOf)), Unknown: true}}
	}
	dates, undated := topology.StackDates(r.Actual, asOf)
	out := make([]ICSEvent, 0, len(dates))
	for _, d := range dates {
		out = append(out, ICSEvent{Stack: r.Stack.Name, Date: d, UID: ICSUID(r.Stack.Name, d.Kind, d.Subject), Summary: icsSummary(r, d), Description: icsDescription(r, d)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Date, out[j].Date
		if !a.Date.Equal(b.Date) {
			return a.Date.Before(b.Date)
		}
		return out[i].UID < out[j].UID
	})
	return out, undated
}

// writeICS writes docs as one calendar named name (RFC 5545, through
// golang-ical: CRLF line endings, lines folded at 75 octets without
// splitting a UTF-8 character, TEXT escaped): VERSION 2.0, PRODID, the
// day judged at (X-NESTOR-AS-OF, when known), then for each stack its
// events (ICSEvents) as all-day VEVENTs — DTSTART and DTEND of
// VALUE=DATE, the day after as its exclusive end (§3.6.1), TRANSP
// TRANSPARENT (a date, not a meeting) — and each thing of it no date could
// be given to (an unread part, a minor no calendar holds, a stack without
// a report) as an X-NESTOR-UNDATED property of the calendar: never an
// event. SEQUENCE is not written: nestor keeps no state between runs to
// count revisions by; a subscribed calendar replaces its events by UID.
func writeICS(w io.Writer, name, asOf string, docs []action.StackDoc, o ICSOptions) error {
	cal := ics.NewCalendarFor("nestor")
	cal.SetProductId(icsProductID)
	cal.SetCalscale("GREGORIAN")
	cal.SetMethod(ics.MethodPublish)
	cal.SetName(name)
	if asOf != "" {
		addCalendarProperty(cal, icsAsOf, asOf)
	}
	for _, d := range docs {
		if d.Failed() {
			who := d.Name
			if who == "" {
				who = d.File // a topology that did not load names no stack
			}
			if who == "" {
				who = "nestor"
			}
			addCalendarProperty(cal, icsUndated, who+": no report ("+string(d.Outcome)+"): "+d.Reason)
			continue
		}
		events, undated := ICSEvents(d.Report)
		for _, u := range undated {
			addCalendarProperty(cal, icsUndated, d.Name+": "+u.String())
		}
		for _, e := range events {
			ev := cal.AddEvent(e.UID)
			ev.SetDtStampTime(o.Stamp)
			ev.SetAllDayStartAt(e.Date.Date)
			ev.SetAllDayEndAt(e.Date.Date.AddDate(0, 0, 1))
			ev.SetSummary(e.Summary)
			ev.SetDescription(e.Description)
			ev.SetTimeTransparency(ics.TransparencyTransparent)
			ev.SetProperty(ics.ComponentProperty(icsStack), e.Stack)
			ev.SetProperty(ics.ComponentProperty(icsEvent), string(e.Date.Kind))
			ev.SetProperty(ics.ComponentProperty(icsSubject), e.Date.Subject)
			if e.Date.Estimated {
				ev.SetProperty(ics.ComponentProperty(icsEstimated), "TRUE")
			}
		}
	}
	return cal.SerializeTo(w, ics.WithNewLineWindows)
}

// addCalendarProperty appends a property to the calendar (golang-ical's
// setters replace one of the same name; X-NESTOR-UNDATED repeats).
func addCalendarProperty(cal *ics.Calendar, name, value string) {
	cal.CalendarProperties = append(cal.CalendarProperties, ics.CalendarProperty{BaseProperty: ics.BaseProperty{IANAToken: name, Value: value, ICalParameters: map[string][]string{}}})
}

// icsSummary is the event's one line: "apps: Kubernetes 1.35 end of
// support upstream", "apps: Kubernetes 1.35 end of support at the
// provider, forced upgrade to 1.36.1", "apps: kapsule-dedicated-4
// commitment ends".
func icsSummary(r *action.Report, d topology.StackDate) string {
	s := r.Stack.Name + ": "
	switch d.Kind {
	case topology.DateUpstreamMaintenance:
		s += "Kubernetes " + d.Minor + " maintenance mode upstream"
	case topology.DateUpstreamEndOfLife:
		s += "Kubernetes " + d.Minor + " end of support upstream"
	case topology.DateProviderDeprecation:
		s += "Kubernetes " + d.Minor + " deprecated at the provider"
	case topology.DateProviderEndOfLife:
		s += "Kubernetes " + d.Minor + " end of support at the provider"
		if d.ForcedTo != "" {
			s += ", forced upgrade to " + d.ForcedTo
		}
	case topology.DateCommitmentEnd:
		s += cmp.Or(d.Type, "dedicated offer") + " commitment ends"
	}
	if d.Estimated {
		s += " (estimated)"
	}
	return s
}

// icsDescription is the event's text: the stack, its version (the
// cluster's, as topology.Observed.ClusterVersion reads it: a managed
// cluster's is its provider's) and who runs the minor; what happens that day; what to
// do (icsAction); on the stack's next hard date (Report.HardDate), the
// upgrade report's blockers; where the date comes from.
func icsDescription(r *action.Report, d topology.StackDate) string {
	var lines []string
	stack := "Stack " + r.Stack.Name + " (" + string(r.Stack.TargetKind) + ")"
	if v := r.Actual.ClusterVersion(); v.Known {
		stack += ", Kubernetes " + v.Raw
	}
	if len(d.Runs) > 0 {
		stack += "; " + d.Minor + " is run by " + runsText(d.Runs)
	}
	lines = append(lines, stack+".")
	day := d.Date.Format(time.DateOnly)
	switch d.Kind {
	case topology.DateUpstreamMaintenance:
		lines = append(lines, fmt.Sprintf("What happens: on %s Kubernetes %s leaves standard support upstream: only critical fixes are backported until its end of life.", day, d.Minor))
	case topology.DateUpstreamEndOfLife:
		lines = append(lines, fmt.Sprintf("What happens: on %s Kubernetes %s reaches its end of life upstream: no more patch releases, security fixes included.", day, d.Minor))
	case topology.DateProviderDeprecation:
		lines = append(lines, fmt.Sprintf("What happens: from %s the provider no longer provisions Kubernetes %s (new clusters and pools).", day, d.Minor))
	case topology.DateProviderEndOfLife:
		what := fmt.Sprintf("What happens: from %s the provider begins to upgrade the clusters still on Kubernetes %s to the next minor", day, d.Minor)
		if d.ForcedTo != "" {
			what += ": it moves this cluster to " + d.ForcedTo
		}
		lines = append(lines, what+".")
	case topology.DateCommitmentEnd:
		lines = append(lines, fmt.Sprintf("What happens: the cluster's %s offer is committed until %s: before it, the cluster cannot move to a lower type (moving up restarts the commitment).", cmp.Or(d.Type, "dedicated"), day))
	}
	if d.Estimated {
		lines = append(lines, "Estimated: upstream has published no date for "+d.Minor+"; this is "+kube.EstimateWords+".")
	}
	lines = append(lines, "What to do: "+icsAction(r, d))
	if hd := r.HardDate; hd != nil && hd.Date.Equal(d.Date) && hd.Forced == (d.Kind == topology.DateProviderEndOfLife) && (d.Kind == topology.DateProviderEndOfLife || d.Kind == topology.DateUpstreamEndOfLife) {
		switch {
		case hd.Judged && hd.Unknowns > 0:
			lines = append(lines, fmt.Sprintf("Before the move to %s: at least %s of warning or worse (removed APIs served, deprecated calls, layers), %s not judged; nestor preview %s lists them.", hd.Minor, kube.Plural(hd.Blockers, "finding"), kube.Plural(hd.Unknowns, "part"), r.Stack.Name))
		case hd.Judged && hd.Blockers > 0:
			lines = append(lines, fmt.Sprintf("Before the move to %s: %s of warning or worse (removed APIs served, deprecated calls, layers); nestor preview %s lists them.", hd.Minor, kube.Plural(hd.Blockers, "finding"), r.Stack.Name))
		case hd.Judged:
			lines = append(lines, fmt.Sprintf("Before the move to %s: the upgrade report finds nothing of warning or worse (removed APIs served, deprecated calls, layers).", hd.Minor))
		default:
			lines = append(lines, fmt.Sprintf("The upgrade report for %s is not made yet (nestor makes it when the move is planned or the date is near): nothing is claimed of what it breaks.", hd.Minor))
		}
	}
	lines = append(lines, "Source: "+d.Source+".")
	return strings.Join(lines, "\n")
}

// icsAction is what to do before d: for a commitment's end, the plan's
// set-type step when it has one; for a version's date, the plan's steps
// that move who runs d's minor (an upgrade step whose subject has the key
// of one of d.Runs), in the plan's order; else the runbook's action for
// d's kind.
func icsAction(r *action.Report, d topology.StackDate) string {
	if d.Kind == topology.DateCommitmentEnd {
		for _, s := range r.Plan.Steps {
			if s.Kind == topology.StepSetType {
				return "the plan's step " + topology.StepRef(s) + " (nestor preview " + r.Stack.Name + "): a move to a lower type is refused until this day, a move up restarts the commitment (RUNBOOK.md § The provider's side)."
			}
		}
		return "nothing, unless the cluster is to move to a lower type: from this day the provider allows it (the plan's set-type step, once scaleway.type declares it; RUNBOOK.md § The provider's side)."
	}
	keys := map[string]bool{}
	for _, s := range d.Runs {
		keys[s.Key] = true
	}
	var refs []string
	for _, s := range r.Plan.Steps {
		if _, ok := topology.StepTo(s); ok && keys[s.Subject.Key] {
			refs = append(refs, topology.StepRef(s))
		}
	}
	if len(refs) > 0 {
		return "the plan's steps, in its order: " + strings.Join(refs, ", ") + " (nestor preview " + r.Stack.Name + ")."
	}
	act := "declare the minor to move to in kubernetes.version and preview: the plan lists the upgrade steps, one minor at a time (RUNBOOK.md §8)."
	switch d.Kind {
	case topology.DateProviderDeprecation:
		return "plan the upgrade before the provider's end of life of " + d.Minor + ": " + act
	case topology.DateProviderEndOfLife:
		return "upgrade before this day to choose when it happens: " + act
	case topology.DateUpstreamMaintenance:
		return "plan the upgrade before the end of life of " + d.Minor + ": " + act
	}
	return "upgrade before this day: " + act
}

// runsText names who runs a minor: "the API server, node a and node b",
// the first five then how many more.
func runsText(runs []topology.Subject) string {
	const shown = 5
	words := topology.Texts(runs)
	if len(words) > shown+1 {
		words = append(words[:shown:shown], fmt.Sprintf("%d more", len(runs)-shown))
	}
	return kube.JoinAnd(words)
}
