package plan

import (
	"fmt"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// JudgeSupport judges minor v (a known version; only its minor counts),
// a finding about it when it is due one,
// used by who ("the API server", "the kubelets on node-a"), against c on
// the day of asOf (Standing):
//
//   - past its end of life (the day itself included): a warning, "1.34
//     reached end of life upstream on 2026-10-27, 34 days ago";
//   - within EndOfLifeNotice of it: an info finding, "reaches end of life
//     upstream on …, in N days";
//   - newer than every entry: an info finding, "newer than this nestor's
//     calendar (as of …)": never "unsupported" by guess;
//   - older than every entry: a warning, since upstream maintains only its
//     three most recent minors (kubernetes.io "Version Skew Policy",
//     "Supported versions") and every entry is past it;
//   - otherwise nothing (ok false).
//
// An estimated date says so in the message. A zero asOf judges nothing.
func JudgeSupport(c kube.Calendar, v kube.Version, who string, asOf time.Time) (topology.Finding, bool) {
	if asOf.IsZero() || !v.Known || len(c.Entries) == 0 {
		return topology.Finding{}, false
	}
	minor := v.MinorString()
	f := topology.Finding{Subject: topology.VersionSubject(minor)}
	st, e, days := c.Standing(v, asOf)
	note := ""
	if e.Estimated {
		note = fmt.Sprintf("; estimated: %s has published no end of life for %s, so this is %s", c.Name, minor, kube.EstimateWords)
	}
	switch st {
	case kube.StandingOlder:
		f.Severity, f.Kind = topology.SeverityWarning, topology.FindingEndOfLife
		f.Message = fmt.Sprintf("%s is older than every minor in this nestor's %s calendar, whose oldest, %s, reached end of life on %s: %s is past its end of life too (%s)",
			minor, c.Name, e.Minor, e.EndOfLife.Format(time.DateOnly), minor, who)
	case kube.StandingNewer:
		f.Severity, f.Kind = topology.SeverityInfo, topology.FindingCalendarUnknown
		f.Message = fmt.Sprintf("%s is newer than this nestor's %s calendar (as of %s, newest %s): its support dates are not known here (%s)",
			minor, c.Name, c.AsOf.Format(time.DateOnly), c.Entries[len(c.Entries)-1].Minor, who)
	case kube.StandingEnded:
		f.Severity, f.Kind = topology.SeverityWarning, topology.FindingEndOfLife
		f.Message = fmt.Sprintf("%s reached end of life %s on %s, %s: no more patch releases, security fixes included (%s)%s",
			minor, calendarWhere(c), e.EndOfLife.Format(time.DateOnly), daysAgo(-days), who, note)
	case kube.StandingEndingSoon:
		f.Severity, f.Kind = topology.SeverityInfo, topology.FindingEndOfLifeSoon
		f.Message = fmt.Sprintf("%s reaches end of life %s on %s, in %s (%s)%s",
			minor, calendarWhere(c), e.EndOfLife.Format(time.DateOnly), kube.Plural(days, "day"), who, note)
	default:
		return topology.Finding{}, false
	}
	return f, true
}

// calendarWhere is "upstream" for upstream's calendar, else "per NAME".
func calendarWhere(c kube.Calendar) string {
	if c.Name == "upstream Kubernetes" {
		return "upstream"
	}
	return "per " + c.Name
}

func daysAgo(n int) string {
	if n == 0 {
		return "today"
	}
	return kube.Plural(n, "day") + " ago"
}
