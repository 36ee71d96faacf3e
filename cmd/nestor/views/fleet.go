package views

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/upgrade"
)

// Fleet writes fleet report r as its table, one line per stack, then the
// summary line; detailed adds each stack's plan (or why there is none)
// under its line. Errors: w's.
func Fleet(w io.Writer, r *action.FleetReport, detailed bool) error {
	tw := newTable("")
	// HEADROOM is a managed offer's: shown when a stack has one, as kubectl
	// shows a column only where it has something to say.
	headroom := slices.ContainsFunc(r.Stacks, func(s action.FleetStack) bool { return s.Headroom != nil })
	cells := func(c ...string) []string {
		if !headroom {
			c = slices.Delete(c, 7, 8)
		}
		return c
	}
	tw.row(cells("STACK", "KIND", "TARGET", "STATUS", "VERSION", "SUPPORT", "DEADLINE", "HEADROOM", "CHANGES", "WAITING", "UNKNOWN")...)
	estimated := false
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, s := range r.Stacks {
		support := "-"
		if s.Report != nil {
			if v, ok := s.Report.ClusterVersion(); ok {
				var est bool
				support, est = supportOf(s.Report, v, true)
				estimated = estimated || est
			}
		}
		tw.row(cells(s.Name, dash(string(s.TargetKind)), dash(s.Target), string(s.Outcome),
			dash(s.Version), support, deadlineText(s.Deadline), headroomCell(s.Headroom), action.CountText(s.Changes), action.CountText(s.Waiting), action.CountText(s.Unknown))...)
	}
	var table strings.Builder
	if err := tw.write(&table); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	fmt.Fprintln(w, lines[0])
	for i, s := range r.Stacks {
		fmt.Fprintln(w, lines[i+1])
		if !detailed {
			continue
		}
		if s.Report == nil {
			for _, line := range strings.Split(s.Reason, "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
			continue
		}
		var b strings.Builder
		renderPlan(&b, s.Report, newPalette(false), false)
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	summary := r.Summary()
	if estimated {
		summary += "   (* estimated date)"
	}
	_, err := fmt.Fprintln(w, summary)
	return err
}

// deadlineText is the DEADLINE column: "2027-02-28 → 1.35, 2 blockers"
// (the date, * when estimated; the minor it forces; "forced" when the
// provider moves the cluster that day; the blockers when the upgrade
// report for that minor was made — "≥N blockers (M unknown)" when parts of
// it could not be made —, else nothing is claimed of them), "-" without a
// date.
func deadlineText(hd *upgrade.HardDate) string {
	if hd == nil {
		return "-"
	}
	s := hd.Date.Format(time.DateOnly)
	if hd.Estimated {
		s += "*"
	}
	s += " → " + hd.Minor
	if hd.Forced {
		s += " forced"
	}
	switch {
	case hd.Judged && hd.Unknowns > 0:
		s += fmt.Sprintf(", ≥%d blockers (%d unknown)", hd.Blockers, hd.Unknowns)
	case hd.Judged:
		s += ", " + kube.Plural(hd.Blockers, "blocker")
	}
	return s
}
