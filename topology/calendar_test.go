package topology

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The embedded table: 1.28 to 1.38 in order, every date consistent, every
// entry sourced, only the unpublished one estimated.
func TestUpstreamCalendarTable(t *testing.T) {
	c := UpstreamCalendar()
	if !c.AsOf.Equal(day(2026, 11, 30)) || c.Name == "" {
		t.Errorf("calendar %q as of %v", c.Name, c.AsOf)
	}
	if len(c.Entries) != 11 {
		t.Fatalf("%d entries, want 1.28 to 1.38", len(c.Entries))
	}
	for i, e := range c.Entries {
		if want := fmt.Sprintf("1.%d", 28+i); e.Minor != want {
			t.Errorf("entry %d is %s, want %s", i, e.Minor, want)
		}
		if e.Source == "" {
			t.Errorf("%s has no source", e.Minor)
		}
		if e.Released.IsZero() || e.EndOfLife.IsZero() || !e.Released.Before(e.EndOfLife) {
			t.Errorf("%s: released %v, end of life %v", e.Minor, e.Released, e.EndOfLife)
		}
		if !e.MaintenanceModeStart.IsZero() && (!e.Released.Before(e.MaintenanceModeStart) || !e.MaintenanceModeStart.Before(e.EndOfLife)) {
			t.Errorf("%s: maintenance mode %v not between release and end of life", e.Minor, e.MaintenanceModeStart)
		}
		if i > 0 && !c.Entries[i-1].Released.Before(e.Released) {
			t.Errorf("%s released before %s", e.Minor, c.Entries[i-1].Minor)
		}
		// Only 1.38 has no published support dates on 2026-11-30.
		if e.Estimated != (e.Minor == "1.38") {
			t.Errorf("%s estimated = %v", e.Minor, e.Estimated)
		}
		if e.Estimated != strings.Contains(e.Source, "estimated") {
			t.Errorf("%s: estimated %v but source %q", e.Minor, e.Estimated, e.Source)
		}
	}
	if e, _ := c.Lookup(ParseVersion("1.32")); !e.MaintenanceModeStart.IsZero() {
		t.Errorf("1.32's maintenance-mode day was not found in the sources; it must stay unrecorded, not %v", e.MaintenanceModeStart)
	}
}

// EstimateSupport reproduces the dates upstream published, which is what
// makes it a fair estimate: the 28th of the month 12 and 14 months after the
// release. The exceptions are upstream's own: 1.34 was set on the 27th, and
// eol.yaml's actual end of life of 1.28, 1.30 and 1.31 differs from the
// planned one.
func TestEstimateSupportMatchesPublished(t *testing.T) {
	for _, e := range UpstreamCalendar().Entries {
		if e.Estimated {
			continue
		}
		maint, eol := EstimateSupport(e.Released)
		if !e.MaintenanceModeStart.IsZero() && !maint.Equal(e.MaintenanceModeStart) && e.Minor != "1.34" {
			t.Errorf("%s: estimated maintenance mode %s, published %s", e.Minor, maint.Format(time.DateOnly), e.MaintenanceModeStart.Format(time.DateOnly))
		}
		switch e.Minor {
		case "1.28", "1.30", "1.31", "1.34":
			if eol.Equal(e.EndOfLife) {
				t.Errorf("%s: the table should hold upstream's own date, which differs from the estimate", e.Minor)
			}
		default:
			if !eol.Equal(e.EndOfLife) {
				t.Errorf("%s: estimated end of life %s, published %s", e.Minor, eol.Format(time.DateOnly), e.EndOfLife.Format(time.DateOnly))
			}
		}
	}
	m, e := EstimateSupport(day(2026, 12, 16))
	if !m.Equal(day(2027, 12, 28)) || !e.Equal(day(2028, 2, 28)) {
		t.Errorf("EstimateSupport(2026-12-16) = %v, %v", m, e)
	}
	m, e = EstimateSupport(day(2027, 11, 3)) // across a year end
	if !m.Equal(day(2028, 11, 28)) || !e.Equal(day(2029, 1, 28)) {
		t.Errorf("EstimateSupport(2027-11-03) = %v, %v", m, e)
	}
}

func TestJudgeSupport(t *testing.T) {
	up := UpstreamCalendar()
	provider := Calendar{Name: "Scaleway Kapsule", AsOf: day(2026, 11, 30), Entries: []CalendarEntry{
		{Minor: "1.36", Released: day(2026, 5, 1), EndOfLife: day(2027, 1, 15)},
	}}
	paris := time.FixedZone("UTC+1", 3600)
	tests := []struct {
		name    string
		cal     Calendar
		version string
		asOf    time.Time
		want    *finding // nil: no finding
	}{
		{"ended 34 days ago", up, "v1.34.1+rke2r1", day(2026, 11, 30),
			&finding{SeverityWarning, FindingEndOfLife, "1.34", "1.34 reached end of life upstream on 2026-10-27, 34 days ago: no more patch releases, security fixes included (who)"}},
		{"ends today", up, "v1.37.2", day(2027, 10, 28),
			&finding{SeverityWarning, FindingEndOfLife, "1.37", "1.37 reached end of life upstream on 2027-10-28, today"}},
		{"ended yesterday", up, "1.37", day(2027, 10, 29),
			&finding{SeverityWarning, FindingEndOfLife, "1.37", "on 2027-10-28, 1 day ago"}},
		{"the published date is not estimated", up, "v1.37.2", day(2027, 11, 1),
			&finding{SeverityWarning, FindingEndOfLife, "1.37", "1.37 reached end of life upstream on 2027-10-28, 4 days ago: no more patch releases, security fixes included (who)"}},
		{"in 90 days: a notice", up, "v1.35.9", day(2026, 11, 30),
			&finding{SeverityInfo, FindingEndOfLifeSoon, "1.35", "1.35 reaches end of life upstream on 2027-02-28, in 90 days (who)"}},
		{"in 1 day", up, "v1.35.9", day(2027, 2, 27),
			&finding{SeverityInfo, FindingEndOfLifeSoon, "1.35", "in 1 day (who)"}},
		{"in 91 days: nothing", up, "v1.35.9", day(2026, 11, 29), nil},
		{"supported for long: nothing", up, "v1.37.2", day(2026, 12, 1), nil},
		{"the day in the caller's location counts", up, "v1.34.0", time.Date(2026, 11, 30, 0, 30, 0, 0, paris),
			&finding{SeverityWarning, FindingEndOfLife, "1.34", "34 days ago"}},
		{"estimated end of life says so", up, "v1.38.1", day(2028, 3, 1),
			&finding{SeverityWarning, FindingEndOfLife, "1.38", "1.38 reached end of life upstream on 2028-02-28, 2 days ago: no more patch releases, security fixes included (who); estimated: upstream Kubernetes has published no end of life for 1.38"}},
		{"estimated notice says so", up, "v1.38.0-rc.1", day(2027, 12, 1),
			&finding{SeverityInfo, FindingEndOfLifeSoon, "1.38", "in 89 days (who); estimated:"}},
		{"newer than the calendar: never unsupported by guess", up, "v1.39.0", day(2026, 11, 30),
			&finding{SeverityInfo, FindingCalendarUnknown, "1.39", "1.39 is newer than this nestor's upstream Kubernetes calendar (as of 2026-11-30, newest 1.38): its support dates are not known here (who)"}},
		{"newer than the calendar, years later", up, "v1.45.0", day(2030, 1, 1),
			&finding{SeverityInfo, FindingCalendarUnknown, "1.45", "newer than this nestor's upstream Kubernetes calendar (as of 2026-11-30"}},
		{"older than the calendar", up, "v1.27.16", day(2026, 11, 30),
			&finding{SeverityWarning, FindingEndOfLife, "1.27", "1.27 is older than every minor in this nestor's upstream Kubernetes calendar, whose oldest, 1.28, reached end of life on 2024-10-22"}},
		{"another major", up, "v2.0.0", day(2026, 11, 30),
			&finding{SeverityInfo, FindingCalendarUnknown, "2.0", "newer than this nestor's"}},
		{"a provider's calendar", provider, "v1.36.4", day(2027, 1, 20),
			&finding{SeverityWarning, FindingEndOfLife, "1.36", "1.36 reached end of life per Scaleway Kapsule on 2027-01-15, 5 days ago"}},
		{"zero date: not judged", up, "v1.30.0", time.Time{}, nil},
		{"unknown version: not judged", up, "garbage", day(2026, 11, 30), nil},
		{"empty calendar: not judged", Calendar{}, "v1.30.0", day(2026, 11, 30), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := tc.cal.JudgeSupport(ParseVersion(tc.version), "who", tc.asOf)
			if tc.want == nil {
				if ok {
					t.Errorf("finding %+v, want none", f)
				}
				return
			}
			if !ok {
				t.Fatalf("no finding, want %+v", *tc.want)
			}
			checkFindings(t, []Finding{f}, []finding{*tc.want})
		})
	}
}
