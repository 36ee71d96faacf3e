package e2e

// End-to-end proofs of -o ics: the built binary reads the provider's
// stand-in (tests/scwstub) and the real API server, and writes the stack's
// dates as a calendar that Debian's python3-icalendar reads back.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/scwstub"
)

// icsRead is a calendar as tests/testdata/ics/check_ics.py read it.
type icsRead struct {
	X      map[string][]string
	Events []struct {
		UID, Summary, Description, DTStart string
		X                                  map[string][]string
	}
}

// events are "KIND SUBJECT DAY" of each event, and the UIDs.
func (c icsRead) events() (keys, uids []string) {
	for _, e := range c.Events {
		keys = append(keys, strings.Join([]string{e.X["X-NESTOR-EVENT"][0], e.X["X-NESTOR-SUBJECT"][0], e.DTStart}, " "))
		uids = append(uids, e.UID)
	}
	slices.Sort(keys)
	slices.Sort(uids)
	return keys, uids
}

// readCalendar has python3-icalendar read data (check_ics.py: it parses,
// RFC 5545's required properties, all-day dates, unique UIDs); the test is
// skipped when no python3 imports icalendar.
func readCalendar(t *testing.T, data string) icsRead {
	t.Helper()
	python := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import icalendar").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("python3-icalendar not installed (apt-get install python3-icalendar)")
	}
	p := filepath.Join(t.TempDir(), "nestor.ics")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, filepath.Join(repoRoot(t), "tests", "testdata", "ics", "check_ics.py"), p).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("python3-icalendar refuses the calendar: %v %s\n%s", err, stderr, data)
	}
	var c icsRead
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKapsuleCalendarICS: a kapsule stack's calendar, read from the
// stand-in and the real API server — the upstream dates of 1.35, the
// provider's deprecation and end of life (the forced upgrade, to 1.36:
// the list offers no 1.36 patch), no commitment for a mutualised cluster
// (its commitment_ends_at is its created_at); a dedicated offer's
// commitment end once the provider says it binds, the UIDs the same at
// another --as-of; the version list forbidden, no provider date and the
// calendar says why; fleet writes it to --output-file with preview's
// events, and the exit codes are the text's.
func TestKapsuleCalendarICS(t *testing.T) {
	kw := newKapsuleWorld(t)
	kw.stack("1.35", "~/.kube/lyneko-apps.config", "")
	preview := func(asOf string) (result, icsRead) {
		t.Helper()
		r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "-o", "ics", "--as-of", asOf)
		wantCode(t, r, 0)
		return r, readCalendar(t, r.stdout)
	}
	mutualised := []string{
		"provider-deprecation 1.35 2027-04-01", "provider-end-of-life 1.35 2027-07-01",
		"upstream-end-of-life 1.35 2027-02-28", "upstream-maintenance 1.35 2026-12-28",
	}
	r, c := preview("2027-03-01")
	if keys, _ := c.events(); !slices.Equal(keys, mutualised) {
		t.Errorf("mutualised: events %v, want %v\n%s", keys, mutualised, r.stdout)
	}
	for _, e := range c.Events {
		if e.X["X-NESTOR-EVENT"][0] == "provider-end-of-life" && e.Summary != "lyneko-apps: Kubernetes 1.35 end of support at the provider, forced upgrade to 1.36" {
			t.Errorf("the forced upgrade's summary: %q", e.Summary)
		}
		if !strings.HasPrefix(e.Description, "Stack lyneko-apps (kapsule), Kubernetes 1.35.3; 1.35 is run by the cluster, pool ") ||
			!strings.Contains(e.Description, "pool default") || !strings.Contains(e.Description, "pool burst") {
			t.Errorf("%s: description %q", e.UID, e.Description)
		}
	}
	kw.wantOnlyReads(t)

	// A dedicated offer, committed until 2027-03-20.
	dedicated := kw.data
	dedicated.Cluster.Type, dedicated.Cluster.CommitmentEndsAt = "kapsule-dedicated-4", time.Date(2027, 3, 20, 9, 14, 0, 0, time.UTC)
	kw.stub.Serve(dedicated)
	r, c = preview("2027-03-01")
	keys, uids := c.events()
	if want := append(slices.Clone(mutualised), "commitment-end "+scwstub.ClusterID+" 2027-03-20"); !slices.Equal(keys, slices.Sorted(slices.Values(want))) {
		t.Errorf("dedicated: events %v, want %v\n%s", keys, want, r.stdout)
	}
	_, later := preview("2027-03-10")
	if _, again := later.events(); !slices.Equal(again, uids) {
		t.Errorf("the UIDs at --as-of 2027-03-10 %v, at 2027-03-01 %v", again, uids)
	}

	// The version list forbidden: no date of the provider, and why.
	kw.stub.Serve(kw.data)
	kw.stub.Script("versions", scwstub.PermissionsDenied())
	r, c = preview("2027-03-01")
	if keys, _ := c.events(); !slices.Equal(keys, mutualised[2:]) {
		t.Errorf("versions forbidden: events %v, want the upstream ones alone\n%s", keys, r.stdout)
	}
	if u := c.X["X-NESTOR-UNDATED"]; len(u) != 1 || !strings.HasPrefix(u[0], "lyneko-apps: the provider's dates (its version list): ") {
		t.Errorf("versions forbidden: the calendar's notes %v", u)
	}

	// fleet, to a file; the exit codes are the text's.
	kw.stub.Serve(kw.data)
	file := filepath.Join(t.TempDir(), "nestor.ics")
	f := kw.run(creds(), "fleet", "--stacks", kw.Stacks, "-o", "ics", "--output-file", file, "--as-of", "2027-03-01")
	wantCode(t, f, 0)
	if f.stdout != "" {
		t.Errorf("stdout with --output-file: %q", f.stdout)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if keys, _ := readCalendar(t, string(data)).events(); !slices.Equal(keys, mutualised) {
		t.Errorf("fleet: events %v, want %v", keys, mutualised)
	}
	text := kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--detailed-exitcode")
	if ics := kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--detailed-exitcode", "-o", "ics"); ics.code != text.code {
		t.Errorf("fleet -o ics --detailed-exitcode: exit %d, the text's %d", ics.code, text.code)
	}
}
