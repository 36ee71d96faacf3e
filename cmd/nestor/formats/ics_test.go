package formats

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// icsChecker reads a calendar with Debian's python3-icalendar
// (tests/testdata/ics/check_ics.py says what it checks).
const icsChecker = "../../../tests/testdata/ics/check_ics.py"

// icsFleet is the fleet's calendar. The reasons of the stacks without a
// report name their files: their folder is written DIR before, not after
// (a line is folded at 75 octets, so the folds would move with the
// length of the test's temporary folder).
func icsFleet(t *testing.T, dir string) []byte {
	t.Helper()
	f := fixtureFleet(t, dir)
	for i := range f.Stacks {
		f.Stacks[i].Reason = strings.ReplaceAll(f.Stacks[i].Reason, dir, "DIR")
	}
	var b bytes.Buffer
	if err := WriteICS(&b, f, ICSOptions{Stamp: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fixtureDedicated is fixtureKapsule on a dedicated offer
// (kapsule-dedicated-4, committed until 2026-12-20) whose topology
// declares 1.36 (an upgrade step), judged at asOf, its next hard date
// made as ReadReport makes it (upgrade.NextHardDate).
func fixtureDedicated(t *testing.T, dir string, asOf time.Time) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, "apps", strings.Replace(kapsuleTopologyText, "kubernetes:\n  version: \"1.35\"", "kubernetes:\n  version: \"1.36\"", 1))
	created, commit := time.Date(2026, 11, 20, 10, 2, 0, 0, time.UTC), time.Date(2026, 12, 20, 10, 2, 0, 0, time.UTC)
	eol, dep := time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	obs := &topology.Observed{
		Kapsule: &topology.KapsuleObserved{
			Cluster: topology.KnownFact(topology.KapsuleCluster{ID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90", Name: "apps", Region: "fr-par", Status: "ready", Version: "1.35.3",
				Type: "kapsule-dedicated-4", CreatedAt: &created, CommitmentEndsAt: &commit}),
			Pools: topology.KnownFact([]topology.KapsulePool{
				{ID: "p1", Name: "default", Status: "ready", Version: "1.35.3", NodeType: "pro2_xxs", Size: 3},
				{ID: "p2", Name: "burst", Status: "ready", Version: "1.35.3", NodeType: "pro2_s", Autoscaling: true, MinSize: 0, MaxSize: 5},
			}),
			Nodes:     topology.KnownFact([]topology.KapsuleNode{}),
			Available: topology.KnownFact([]string{"1.35.3", "1.36.1"}),
			Versions:  topology.KnownFact([]topology.KapsuleVersion{{Name: "1.35.3", DeprecatedAt: &dep, EndOfLifeAt: &eol}, {Name: "1.36.1"}}),
			ACL:       topology.KnownFact([]string{"scaleway_ranges"}),
			Provider:  []string{},
			InCluster: "no kubeconfig: declared",
		},
		Layers: []topology.LayerState{{Name: "argocd", Declared: true, Health: topology.Healthy, Reason: "argocd/argocd-server 1/1 available"}},
	}
	r := action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, asOf)
	due := upgrade.MovesDue(r.Plan, obs, kube.ProviderEndOfLifeNoticeDays, asOf)
	if hd, ok := upgrade.NextHardDate(obs, due, r.Plan.Findings, asOf); ok {
		r.HardDate = &hd
	}
	return r
}

// icsLines checks what RFC 5545 asks of the calendar's lines (§3.1): each
// ends with CRLF, is at most 75 octets, and is whole UTF-8 (a fold never
// splits a character).
func icsLines(t *testing.T, name string, data []byte) {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		t.Errorf("%s: does not end with CRLF", name)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\r\n")), []byte("\r\n")) {
		switch {
		case bytes.ContainsAny(line, "\r\n"):
			t.Errorf("%s line %d: a bare CR or LF: %q", name, i+1, line)
		case len(line) > 75:
			t.Errorf("%s line %d: %d octets, more than 75: %q", name, i+1, len(line), line)
		case !utf8.Valid(line):
			t.Errorf("%s line %d: not whole UTF-8 (a fold split a character): %q", name, i+1, line)
		}
	}
}

// TestICSFleet writes the fleet's calendar: the lines RFC 5545 asks for,
// one event per dated day of each stack with a report and none of a stack
// without one (it is an X-NESTOR-UNDATED note), the events of the model in
// order; then the golden file.
func TestICSFleet(t *testing.T) {
	dir := t.TempDir()
	data := icsFleet(t, dir)
	icsLines(t, "fleet.ics", data)
	s := string(data)
	for _, want := range []string{"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nestor.dev//nestor//EN\r\n", "X-NESTOR-AS-OF:2026-11-30\r\n",
		"X-NESTOR-UNDATED:broken: no report (invalid):", "X-NESTOR-UNDATED:edge: no report (refused):", "DTSTART;VALUE=DATE:20261215\r\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("the calendar lacks %q", want)
		}
	}
	var uids []string
	for _, line := range strings.Split(s, "\r\n") {
		if uid, ok := strings.CutPrefix(line, "UID:"); ok {
			uids = append(uids, uid)
		}
	}
	want := []string{
		"apps/provider-deprecation/1.35@nestor.dev", "apps/provider-end-of-life/1.35@nestor.dev", "apps/upstream-maintenance/1.35@nestor.dev", "apps/upstream-end-of-life/1.35@nestor.dev",
		"dirqual/upstream-maintenance/1.34@nestor.dev", "dirqual/upstream-end-of-life/1.34@nestor.dev", "dirqual/upstream-maintenance/1.37@nestor.dev", "dirqual/upstream-end-of-life/1.37@nestor.dev",
	}
	if !slices.Equal(uids, want) {
		t.Errorf("events\n%v\nwant (by stack, then date)\n%v", uids, want)
	}
	checkGolden(t, "fleet.ics", dir, data)
}

// icsParsed is one calendar as check_ics.py printed it.
type icsParsed struct {
	X      map[string][]string
	Events []struct {
		UID, Summary, Description, DTStart, DTEnd string
		X                                         map[string][]string
	}
}

// icalendarPython returns a python3 that imports icalendar: Debian's
// (/usr/bin/python3, where apt's python3-icalendar is), else the one on
// PATH; "" when none does.
func icalendarPython() string {
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if exec.Command(p, "-c", "import icalendar").Run() == nil {
			return p
		}
	}
	return ""
}

// readICS has check_ics.py read each calendar; it fails the test when one
// is refused.
func readICS(t *testing.T, python string, cals map[string][]byte) map[string]icsParsed {
	t.Helper()
	dir := t.TempDir()
	out := map[string]icsParsed{}
	for name, data := range cals {
		p := filepath.Join(dir, name+".ics")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, err := exec.Command(python, icsChecker, p).Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Errorf("python3-icalendar refuses %s: %v %s\n%s", name, err, stderr, data)
			continue
		}
		var c icsParsed
		if err := json.Unmarshal(stdout, &c); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stdout)
		}
		out[name] = c
	}
	return out
}

// TestICSValidatesWithIcalendar has an independent parser, Debian's
// python3-icalendar, read the fleet's calendar, a dedicated kapsule
// preview's and a failure's (check_ics.py: RFC 5545's required properties,
// all-day dates, unique UIDs, no parse error), and compares what it read —
// folding undone, TEXT unescaped — with the events nestor meant, word for
// word; and checks the validation is live: a calendar without VERSION, an
// event twice, a date-time start, are refused. Skipped when no python3
// imports icalendar (apt-get install python3-icalendar).
func TestICSValidatesWithIcalendar(t *testing.T) {
	python := icalendarPython()
	if python == "" {
		t.Skip("python3-icalendar not installed (apt-get install python3-icalendar)")
	}
	dir := t.TempDir()
	fleet := fixtureFleet(t, dir)
	ded := fixtureDedicated(t, dir, fixtureAsOf)
	var preview, failure bytes.Buffer
	if err := WriteICS(&preview, ded, ICSOptions{Stamp: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	if err := WriteICS(&failure, action.NewFailure(nil, os.ErrNotExist), ICSOptions{Stamp: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	icsLines(t, "preview", preview.Bytes())
	got := readICS(t, python, map[string][]byte{"fleet": icsFleet(t, dir), "preview": preview.Bytes(), "failure": failure.Bytes()})

	type want struct{ uid, summary, description, start, end, stack, kind, subject string }
	meant := func(reports ...*action.Report) []want {
		var out []want
		for _, r := range reports {
			events, _ := ICSEvents(r)
			for _, e := range events {
				out = append(out, want{e.UID, e.Summary, e.Description, e.Date.Date.Format(time.DateOnly), e.Date.Date.AddDate(0, 0, 1).Format(time.DateOnly),
					e.Stack, string(e.Date.Kind), e.Date.Subject})
			}
		}
		return out
	}
	var fleetReports []*action.Report
	for _, s := range fleet.Stacks {
		if s.Report != nil {
			fleetReports = append(fleetReports, s.Report)
		}
	}
	for name, w := range map[string][]want{"fleet": meant(fleetReports...), "preview": meant(ded), "failure": nil} {
		c := got[name]
		var read []want
		for _, e := range c.Events {
			read = append(read, want{e.UID, e.Summary, e.Description, e.DTStart, e.DTEnd, first(e.X["X-NESTOR-STACK"]), first(e.X["X-NESTOR-EVENT"]), first(e.X["X-NESTOR-SUBJECT"])})
		}
		if !slices.Equal(read, w) {
			t.Errorf("%s: python3-icalendar read\n%q\nnestor meant\n%q", name, read, w)
		}
	}
	if u := got["failure"].X["X-NESTOR-UNDATED"]; len(u) != 1 || !strings.Contains(u[0], "no report") {
		t.Errorf("a failure that names no stack must still say it made no report, said %v", u)
	}
	if !slices.ContainsFunc(got["preview"].X["X-NESTOR-AS-OF"], func(s string) bool { return s == "2026-11-30" }) {
		t.Errorf("the preview's calendar does not say the day it was judged at: %v", got["preview"].X)
	}
	commitment := false
	for _, e := range got["preview"].Events {
		if first(e.X["X-NESTOR-EVENT"]) == string(topology.DateCommitmentEnd) {
			commitment = e.DTStart == "2026-12-20" && e.Summary == "apps: kapsule-dedicated-4 commitment ends"
		}
	}
	if !commitment {
		t.Errorf("the dedicated offer's commitment end is not read back as 2026-12-20:\n%s", preview.String())
	}

	// The validation is live: each of these is refused.
	good := preview.String()
	for name, bad := range map[string]string{
		"no-version":   strings.Replace(good, "VERSION:2.0\r\n", "", 1),
		"event-twice":  strings.Replace(good, "END:VCALENDAR\r\n", good[strings.Index(good, "BEGIN:VEVENT"):strings.Index(good, "END:VEVENT")+len("END:VEVENT\r\n")]+"END:VCALENDAR\r\n", 1),
		"date-time":    strings.Replace(good, "DTSTART;VALUE=DATE:20261215", "DTSTART:20261215T000000Z", 1),
		"unparseable":  strings.Replace(good, "TRANSP:TRANSPARENT\r\n", "TRANSP TRANSPARENT\r\n", 1),
		"no-dtstart":   strings.Replace(good, "DTSTART;VALUE=DATE:20261215\r\n", "", 1),
		"local-stamp":  strings.Replace(good, "DTSTAMP:20261130T060000Z", "DTSTAMP:20261130T060000", 1),
		"end-same-day": strings.Replace(good, "DTEND;VALUE=DATE:20261216", "DTEND;VALUE=DATE:20261215", 1),
	} {
		if bad == good {
			t.Fatalf("%s: the broken calendar is the good one", name)
		}
		p := filepath.Join(t.TempDir(), name+".ics")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(python, icsChecker, p).CombinedOutput(); err == nil {
			t.Errorf("check_ics.py accepts %s:\n%s", name, out)
		}
	}
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// TestICSUIDStable: the UIDs are made of the stack, the kind and the
// subject, never of the date: two reads at other days, the provider's end
// of life moved between them, give the same UIDs, the moved event with its
// new day.
func TestICSUIDStable(t *testing.T) {
	dir := t.TempDir()
	a := fixtureDedicated(t, dir, fixtureAsOf)
	b := fixtureDedicated(t, dir, time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC))
	b.AsOf = "2026-12-10"
	moved := time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC)
	b.Actual.Kapsule.Versions.Value[0].EndOfLifeAt = &moved
	ea, _ := ICSEvents(a)
	eb, _ := ICSEvents(b)
	uids := func(es []ICSEvent) map[string]time.Time {
		out := map[string]time.Time{}
		for _, e := range es {
			out[e.UID] = e.Date.Date
			for _, d := range []string{e.Date.Date.Format(time.DateOnly), e.Date.Date.Format("20060102")} {
				if strings.Contains(e.UID, d) {
					t.Errorf("UID %s holds its date %s", e.UID, d)
				}
			}
		}
		return out
	}
	ua, ub := uids(ea), uids(eb)
	if len(ua) != len(ea) || len(ua) == 0 {
		t.Fatalf("UIDs %v: not one per event", ua)
	}
	for uid := range ua {
		if _, ok := ub[uid]; !ok {
			t.Errorf("%s: gone in the second read (%v)", uid, ub)
		}
	}
	if len(ub) != len(ua) {
		t.Errorf("second read's UIDs %v, the first's %v", ub, ua)
	}
	eol := ICSUID("apps", topology.DateProviderEndOfLife, "1.35")
	if !ua[eol].Equal(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)) || !ub[eol].Equal(moved) {
		t.Errorf("%s: %v then %v, want the moved day under the same UID", eol, ua[eol], ub[eol])
	}
}

// TestICSDescription: the description says the stack, its version and who
// runs the minor, what happens, what to do — the plan's steps that move
// it when there are, else the runbook's action — the upgrade report's
// blockers on the stack's next hard date, and the source.
func TestICSDescription(t *testing.T) {
	r := fixtureDedicated(t, t.TempDir(), fixtureAsOf)
	events, _ := ICSEvents(r)
	by := map[topology.DateKind]ICSEvent{}
	for _, e := range events {
		by[e.Date.Kind] = e
	}
	eol := by[topology.DateProviderEndOfLife]
	for _, want := range []string{
		"Stack apps (kapsule), Kubernetes 1.35.3; 1.35 is run by the cluster, pool default and pool burst.",
		"from 2026-12-15 the provider begins to upgrade the clusters still on Kubernetes 1.35 to the next minor: it moves this cluster to 1.36.1.",
		"What to do: the plan's steps, in its order: upgrade cluster → 1.36.1",
		"Before the move to 1.36: the upgrade report finds nothing of warning or worse",
		"Source: the provider's version list (GET /k8s/v1/regions/fr-par/versions): 1.35.3 end_of_life_at.",
	} {
		if !strings.Contains(eol.Description, want) {
			t.Errorf("provider end of life: %q lacks %q", eol.Description, want)
		}
	}
	if eol.Summary != "apps: Kubernetes 1.35 end of support at the provider, forced upgrade to 1.36.1" {
		t.Errorf("summary %q", eol.Summary)
	}
	if up := by[topology.DateUpstreamEndOfLife]; strings.Contains(up.Description, "Before the move") {
		t.Errorf("the upstream end of life is not the next hard date (the provider's comes first), yet: %q", up.Description)
	}
	c := by[topology.DateCommitmentEnd]
	if c.UID != ICSUID("apps", topology.DateCommitmentEnd, "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90") || !strings.Contains(c.Description, "committed until 2026-12-20") ||
		!strings.Contains(c.Description, "commitment_ends_at") {
		t.Errorf("commitment: %+v", c)
	}

	// The blockers as the upgrade report counted them, or nothing claimed
	// of a report not made.
	for _, tc := range []struct {
		judged            bool
		blockers, unknown int
		want              string
	}{
		{true, 2, 0, "Before the move to 1.36: 2 findings of warning or worse (removed APIs served, deprecated calls, layers); nestor preview apps lists them."},
		{true, 2, 1, "Before the move to 1.36: at least 2 findings of warning or worse (removed APIs served, deprecated calls, layers), 1 part not judged;"},
		{false, 0, 0, "The upgrade report for 1.36 is not made yet (nestor makes it when the move is planned or the date is near): nothing is claimed of what it breaks."},
	} {
		hd := *r.HardDate
		hd.Judged, hd.Blockers, hd.Unknowns = tc.judged, tc.blockers, tc.unknown
		rr := *r
		rr.HardDate = &hd
		if d := icsDescription(&rr, eol.Date); !strings.Contains(d, tc.want) {
			t.Errorf("hard date %+v: %q lacks %q", hd, d, tc.want)
		}
	}

	// The plan's set-type step, when it has one, is what to do about the
	// commitment; without it, the runbook's action.
	if !strings.Contains(c.Description, "What to do: nothing, unless the cluster is to move to a lower type: from this day the provider allows it") {
		t.Errorf("commitment without a set-type step: %q", c.Description)
	}
	withStep := *r
	withStep.Plan.Steps = append([]topology.Step{topology.NewStep(topology.StepSetType, topology.PhaseCluster, "cluster", "kapsule-dedicated-4 → kapsule (a lower type)")}, r.Plan.Steps...)
	if d := icsDescription(&withStep, c.Date); !strings.Contains(d, "What to do: the plan's step set-type cluster (nestor preview apps): a move to a lower type is refused until this day") {
		t.Errorf("commitment with a set-type step: %q", d)
	}

	// Without steps, the runbook's action.
	f := fixtureFleet(t, t.TempDir())
	events, _ = ICSEvents(f.Stacks[0].Report)
	if len(events) == 0 || !strings.Contains(events[0].Description, "What to do: plan the upgrade before the provider's end of life of 1.35: declare the minor to move to in kubernetes.version") {
		t.Errorf("no runbook action: %+v", events)
	}
}

// TestICSNothingRead: a stack of which nothing was read has no event, and
// says why in the calendar; a forbidden node list dates the server's minor
// alone and says the kubelets were not read.
func TestICSNothingRead(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		r       *action.Report
		events  int
		undated string
	}{
		{fixtureNoTarget(t, dir), 0, "X-NESTOR-UNDATED:nokc: the whole cluster: no kubeconfig"},
		{fixtureForbidden(t, dir), 2, "X-NESTOR-UNDATED:ro: the kubelets' versions: forbidden (user ro cannot list nodes)"},
	} {
		var b bytes.Buffer
		if err := WriteICS(&b, tc.r, ICSOptions{Stamp: fixtureReadAt}); err != nil {
			t.Fatal(err)
		}
		unfolded := strings.ReplaceAll(b.String(), "\r\n ", "")
		if n := strings.Count(unfolded, "BEGIN:VEVENT"); n != tc.events {
			t.Errorf("%s: %d events, want %d\n%s", tc.r.Stack.Name, n, tc.events, b.String())
		}
		if !strings.Contains(unfolded, tc.undated) {
			t.Errorf("%s: the calendar does not say %q\n%s", tc.r.Stack.Name, tc.undated, b.String())
		}
	}
}
