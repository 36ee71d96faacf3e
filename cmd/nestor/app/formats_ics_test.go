package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
)

// TestICSFormat: -o ics is offered by preview's and fleet's completion and
// help, and --output-file writes the calendar whole, nothing on stdout, an
// existing file replaced (its mode kept), no temporary file left beside it.
func TestICSFormat(t *testing.T) {
	for _, cmd := range []string{"preview", "fleet"} {
		if got, _ := complete(t, nil, cmd, "-o", ""); !slices.Contains(got, "ics") {
			t.Errorf("%s -o completes %v, without ics", cmd, got)
		}
		a, out, _ := testApp(t, nil, false, nil)
		if code := Run(a, []string{cmd, "--help"}); code != ExitOK || !strings.Contains(out.String(), "|ics") {
			t.Errorf("%s --help: exit %d, -o's values without ics:\n%s", cmd, code, out)
		}
	}

	dir := t.TempDir()
	lab := writeStack(t, dir, "lab", prodNoKubeconfig)
	outDir := filepath.Join(dir, "calendars")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cal := filepath.Join(outDir, "nestor.ics")
	if err := os.WriteFile(cal, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"preview", "-f", lab, "-o", "ics", "--output-file", cal},
		{"fleet", "-f", lab, "-o", "ICS", "--output-file", cal},
	} {
		a, out, errOut := testApp(t, map[string]string{"HOME": dir}, false, nil)
		if code := Run(a, args); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout has %q", args, out)
		}
		data, err := os.ReadFile(cal)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ics.ParseCalendar(bytes.NewReader(data))
		if err != nil || !bytes.HasPrefix(data, []byte("BEGIN:VCALENDAR\r\n")) || len(c.Events()) != 0 {
			t.Errorf("%v: %v\n%s", args, err, data)
		}
		if !bytes.Contains(bytes.ReplaceAll(data, []byte("\r\n "), nil), []byte("X-NESTOR-UNDATED:lab: the whole cluster: no kubeconfig")) {
			t.Errorf("%v: the calendar does not say why lab has no date:\n%s", args, data)
		}
		if fi, err := os.Stat(cal); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%v: mode %v, %v; want 0640 kept", args, fi.Mode(), err)
		}
		if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
			t.Errorf("%v: the folder holds %v: a temporary file was left", args, entries)
		}
	}
}
