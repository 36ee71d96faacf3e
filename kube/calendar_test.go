package kube

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
	if !c.AsOf.Equal(Day(2026, 11, 30)) || c.Name == "" {
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
	m, e := EstimateSupport(Day(2026, 12, 16))
	if !m.Equal(Day(2027, 12, 28)) || !e.Equal(Day(2028, 2, 28)) {
		t.Errorf("EstimateSupport(2026-12-16) = %v, %v", m, e)
	}
	m, e = EstimateSupport(Day(2027, 11, 3)) // across a year end
	if !m.Equal(Day(2028, 11, 28)) || !e.Equal(Day(2029, 1, 28)) {
		t.Errorf("EstimateSupport(2027-11-03) = %v, %v", m, e)
	}
}
