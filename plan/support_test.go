package plan_test

import (
	"testing"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

func TestJudgeSupport(t *testing.T) {
	up := kube.UpstreamCalendar()
	provider := kube.Calendar{Name: "Scaleway Kapsule", AsOf: kube.Day(2026, 11, 30), Entries: []kube.CalendarEntry{
		{Minor: "1.36", Released: kube.Day(2026, 5, 1), EndOfLife: kube.Day(2027, 1, 15)},
	}}
	paris := time.FixedZone("UTC+1", 3600)
	tests := []struct {
		name    string
		cal     kube.Calendar
		version string
		asOf    time.Time
		want    *finding // nil: no finding
	}{
		{"ended 34 days ago", up, "v1.34.1+rke2r1", kube.Day(2026, 11, 30),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.34", "1.34 reached end of life upstream on 2026-10-27, 34 days ago: no more patch releases, security fixes included (who)"}},
		{"ends today", up, "v1.37.2", kube.Day(2027, 10, 28),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.37", "1.37 reached end of life upstream on 2027-10-28, today"}},
		{"ended yesterday", up, "1.37", kube.Day(2027, 10, 29),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.37", "on 2027-10-28, 1 day ago"}},
		{"the published date is not estimated", up, "v1.37.2", kube.Day(2027, 11, 1),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.37", "1.37 reached end of life upstream on 2027-10-28, 4 days ago: no more patch releases, security fixes included (who)"}},
		{"in 90 days: a notice", up, "v1.35.9", kube.Day(2026, 11, 30),
			&finding{topology.SeverityInfo, topology.FindingEndOfLifeSoon, "1.35", "1.35 reaches end of life upstream on 2027-02-28, in 90 days (who)"}},
		{"in 1 day", up, "v1.35.9", kube.Day(2027, 2, 27),
			&finding{topology.SeverityInfo, topology.FindingEndOfLifeSoon, "1.35", "in 1 day (who)"}},
		{"in 91 days: nothing", up, "v1.35.9", kube.Day(2026, 11, 29), nil},
		{"supported for long: nothing", up, "v1.37.2", kube.Day(2026, 12, 1), nil},
		{"the day in the caller's location counts", up, "v1.34.0", time.Date(2026, 11, 30, 0, 30, 0, 0, paris),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.34", "34 days ago"}},
		{"estimated end of life says so", up, "v1.38.1", kube.Day(2028, 3, 1),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.38", "1.38 reached end of life upstream on 2028-02-28, 2 days ago: no more patch releases, security fixes included (who); estimated: upstream Kubernetes has published no end of life for 1.38"}},
		{"estimated notice says so", up, "v1.38.0-rc.1", kube.Day(2027, 12, 1),
			&finding{topology.SeverityInfo, topology.FindingEndOfLifeSoon, "1.38", "in 89 days (who); estimated:"}},
		{"newer than the calendar: never unsupported by guess", up, "v1.39.0", kube.Day(2026, 11, 30),
			&finding{topology.SeverityInfo, topology.FindingCalendarUnknown, "1.39", "1.39 is newer than this nestor's upstream Kubernetes calendar (as of 2026-11-30, newest 1.38): its support dates are not known here (who)"}},
		{"newer than the calendar, years later", up, "v1.45.0", kube.Day(2030, 1, 1),
			&finding{topology.SeverityInfo, topology.FindingCalendarUnknown, "1.45", "newer than this nestor's upstream Kubernetes calendar (as of 2026-11-30"}},
		{"older than the calendar", up, "v1.27.16", kube.Day(2026, 11, 30),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.27", "1.27 is older than every minor in this nestor's upstream Kubernetes calendar, whose oldest, 1.28, reached end of life on 2024-10-22"}},
		{"another major", up, "v2.0.0", kube.Day(2026, 11, 30),
			&finding{topology.SeverityInfo, topology.FindingCalendarUnknown, "2.0", "newer than this nestor's"}},
		{"a provider's calendar", provider, "v1.36.4", kube.Day(2027, 1, 20),
			&finding{topology.SeverityWarning, topology.FindingEndOfLife, "1.36", "1.36 reached end of life per Scaleway Kapsule on 2027-01-15, 5 days ago"}},
		{"zero date: not judged", up, "v1.30.0", time.Time{}, nil},
		{"unknown version: not judged", up, "garbage", kube.Day(2026, 11, 30), nil},
		{"empty calendar: not judged", kube.Calendar{}, "v1.30.0", kube.Day(2026, 11, 30), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := plan.JudgeSupport(tc.cal, kube.ParseVersion(tc.version), "who", tc.asOf)
			if tc.want == nil {
				if ok {
					t.Errorf("finding %+v, want none", f)
				}
				return
			}
			if !ok {
				t.Fatalf("no finding, want %+v", *tc.want)
			}
			checkFindings(t, []topology.Finding{f}, []finding{*tc.want})
		})
	}
}
