package kube

import (
	"fmt"
	"time"
)

// EndOfLifeNotice is how long before a minor's end of life its coming end
// becomes an info finding.
const EndOfLifeNotice = 90 * 24 * time.Hour

// ProviderEndOfLifeNoticeDays is how many days before a managed provider's
// end of life of a minor nestor warns of it, and judges the move the
// provider then forces (upgrade.MovesDue).
const ProviderEndOfLifeNoticeDays = 60

// Calendar is a table of minors with their support dates: upstream's
// (UpstreamCalendar) or, later, a provider's.
type Calendar struct {
	// Name says whose calendar it is ("upstream Kubernetes").
	Name string
	// AsOf is the day the table was last checked against its sources: a
	// minor newer than every entry may have been released since.
	AsOf time.Time
	// Entries are ordered oldest minor first.
	Entries []CalendarEntry
}

// CalendarEntry is one minor's support dates. A zero date is one the
// calendar does not record.
type CalendarEntry struct {
	// Minor is "MAJOR.MINOR" ("1.37").
	Minor string
	// Released is the day MINOR.0 was released (or is planned, see Source).
	Released time.Time
	// MaintenanceModeStart ends the standard support period (upstream's
	// maintenanceModeStartDate): from then until EndOfLife only critical
	// fixes are backported.
	MaintenanceModeStart time.Time
	// EndOfLife is the end of all patch releases, security fixes included.
	EndOfLife time.Time
	// Estimated is true when MaintenanceModeStart and EndOfLife are this
	// calendar's estimate (EstimateSupport), not a published date.
	Estimated bool
	// Source names where each date comes from.
	Source string
}

// Sources of the upstream table, kept with the code (STYLE.md: a rule and
// its source together).
const (
	// srcSchedule is upstream's schedule of each supported minor
	// (releaseDate, maintenanceModeStartDate, endOfLifeDate), rendered on
	// https://kubernetes.io/releases/ (one page per minor, /releases/1.NN/).
	srcSchedule = "kubernetes/website data/releases/schedule.yaml (https://kubernetes.io/releases/)"
	// srcEOL lists each minor that has reached its end of life, with the
	// day it did and its final patch (https://kubernetes.io/releases/, "End of
	// Life" table; the day can differ from the one the schedule planned).
	srcEOL = "kubernetes/website data/releases/eol.yaml"
)

// upstreamAsOf is the day UpstreamCalendar's table was last checked.
var upstreamAsOf = Day(2026, 11, 30)

// UpstreamCalendar returns upstream Kubernetes' support calendar for 1.28 to
// 1.38, as published on the day in its AsOf (2026-11-30).
//
// Upstream supports each minor about 14 months: 12 months of standard
// support, then 2 months of maintenance mode (kubernetes.io "Patch Releases",
// "Support Period": the yearly support KEP, KEP-1498). The dates come from
// the sources named on each entry: schedule.yaml for the release,
// maintenance-mode and planned end-of-life days of each minor it lists, and
// eol.yaml for the actual end of life of a minor that has ended. 1.38 is not
// released on that day: its release day is the one SIG Release plans
// (kubernetes/sig-release releases/release-1.38/README.md), and its support
// dates are estimated (EstimateSupport) because upstream has published none.
// Only dates read from those sources are recorded: 1.32's maintenance-mode
// day was not found in them and is zero.
func UpstreamCalendar() Calendar {
	pub := func(minor string, released, maint, eol time.Time, src string) CalendarEntry {
		return CalendarEntry{Minor: minor, Released: released, MaintenanceModeStart: maint, EndOfLife: eol, Source: src}
	}
	const schedThenEOL = "released and maintenance mode: " + srcSchedule + "; end of life: " + srcEOL
	return Calendar{
		Name: "upstream Kubernetes",
		AsOf: upstreamAsOf,
		Entries: []CalendarEntry{
			pub("1.28", Day(2023, 8, 15), Day(2024, 8, 28), Day(2024, 10, 22), schedThenEOL),
			pub("1.29", Day(2023, 12, 13), Day(2024, 12, 28), Day(2025, 2, 28), schedThenEOL),
			pub("1.30", Day(2024, 4, 17), Day(2025, 4, 28), Day(2025, 7, 15), schedThenEOL),
			pub("1.31", Day(2024, 8, 13), Day(2025, 8, 28), Day(2025, 11, 11), schedThenEOL),
			pub("1.32", Day(2024, 12, 11), time.Time{}, Day(2026, 2, 28),
				"released: https://kubernetes.io/blog/2024/12/11/kubernetes-v1-32-release/; end of life: "+srcEOL),
			pub("1.33", Day(2025, 4, 23), Day(2026, 4, 28), Day(2026, 6, 28),
				"released: https://kubernetes.io/blog/2025/04/23/kubernetes-v1-33-release/; maintenance mode and end of life: "+srcSchedule),
			pub("1.34", Day(2025, 8, 27), Day(2026, 8, 27), Day(2026, 10, 27),
				"released: the v1.34.0 tag of kubernetes/kubernetes; maintenance mode and end of life: "+srcSchedule),
			pub("1.35", Day(2025, 12, 17), Day(2026, 12, 28), Day(2027, 2, 28),
				"released: kubernetes/sig-release releases/release-1.35/README.md; maintenance mode and end of life: "+srcSchedule),
			pub("1.36", Day(2026, 4, 22), Day(2027, 4, 28), Day(2027, 6, 28), srcSchedule),
			pub("1.37", Day(2026, 8, 26), Day(2027, 8, 28), Day(2027, 10, 28), srcSchedule),
			estimated("1.38", Day(2026, 12, 16),
				"released: planned by kubernetes/sig-release releases/release-1.38/README.md (not yet released on 2026-11-30); maintenance mode and end of life: estimated, none published"),
		},
	}
}

// estimated returns an entry whose support dates are EstimateSupport's.
func estimated(minor string, released time.Time, src string) CalendarEntry {
	maint, eol := EstimateSupport(released)
	return CalendarEntry{Minor: minor, Released: released, MaintenanceModeStart: maint, EndOfLife: eol, Estimated: true, Source: src}
}

// EstimateSupport returns the maintenance-mode start and end of life of a
// minor released on released, for a minor whose dates upstream has not
// published: 12 and 14 months after its release (upstream's support period,
// kubernetes.io "Patch Releases", "Support Period"), on the 28th of that
// month, as upstream set them for 1.28 to 1.37 (1.34: the 27th).
func EstimateSupport(released time.Time) (maintenanceModeStart, endOfLife time.Time) {
	y, m, _ := released.Date()
	return time.Date(y, m+estimateMaintenanceMonths, 28, 0, 0, 0, 0, time.UTC), time.Date(y, m+estimateEndOfLifeMonths, 28, 0, 0, 0, 0, time.UTC)
}

// The months EstimateSupport counts from a minor's release.
const (
	estimateMaintenanceMonths = 12
	estimateEndOfLifeMonths   = 14
)

// EstimateWords says how an estimated end of life was reckoned, for the
// views that say a date is estimated: "14 months after its release (12
// months + 2 months of maintenance)".
var EstimateWords = fmt.Sprintf("%d months after its release (%d months + %d months of maintenance)",
	estimateEndOfLifeMonths, estimateMaintenanceMonths, estimateEndOfLifeMonths-estimateMaintenanceMonths)

// Lookup returns the entry of v's minor, and whether the calendar holds it.
func (c Calendar) Lookup(v Version) (CalendarEntry, bool) {
	m := v.MinorString()
	for _, e := range c.Entries {
		if e.Minor == m {
			return e, true
		}
	}
	return CalendarEntry{}, false
}

// Standing is where a minor stands in a calendar on a given day.
type Standing int

// The standings of Calendar.Standing.
const (
	// StandingNewer: newer than every entry, its dates not known here.
	StandingNewer Standing = iota
	// StandingOlder: older than every entry, so past its end of life
	// (upstream maintains only its three most recent minors).
	StandingOlder
	// StandingNoDate: listed, with no end of life recorded.
	StandingNoDate
	// StandingSupported: its end of life is more than EndOfLifeNotice away.
	StandingSupported
	// StandingEndingSoon: its end of life is within EndOfLifeNotice.
	StandingEndingSoon
	// StandingEnded: its end of life has passed (the day itself included).
	StandingEnded
)

// Standing says where minor v (known) stands in c on the day of asOf (its
// date in asOf's location): the one rule plan.JudgeSupport and every view of
// the calendar use. It returns v's entry (the oldest entry for
// StandingOlder) and the days from that day to the entry's end of life
// (negative once past).
func (c Calendar) Standing(v Version, asOf time.Time) (Standing, CalendarEntry, int) {
	e, ok := c.Lookup(v)
	if !ok {
		if len(c.Entries) > 0 && CompareMinor(v, ParseVersion(c.Entries[0].Minor)) < 0 {
			return StandingOlder, c.Entries[0], 0
		}
		return StandingNewer, CalendarEntry{}, 0
	}
	if e.EndOfLife.IsZero() {
		return StandingNoDate, e, 0
	}
	days := int(e.EndOfLife.Sub(DateOf(asOf)).Hours() / 24)
	switch {
	case days <= 0:
		return StandingEnded, e, days
	case time.Duration(days)*24*time.Hour <= EndOfLifeNotice:
		return StandingEndingSoon, e, days
	}
	return StandingSupported, e, days
}

// Support is where one minor stands in a calendar on a day, as
// Calendar.Standing says it: a value a report carries, so that every view
// and format reads the same standing rather than asking the calendar again.
type Support struct {
	// Minor is the minor judged.
	Minor Version
	// AsOf is the day it was judged at (zero: not judged at a day; the
	// entry's dates alone are known).
	AsOf     time.Time
	Standing Standing
	// Entry is the minor's entry (the oldest entry for StandingOlder, zero
	// for StandingNewer).
	Entry CalendarEntry
	// Days are from AsOf to the entry's end of life (negative once past).
	Days int
	// CalendarAsOf is the calendar's own date (Calendar.AsOf): a minor newer
	// than every entry may have been released since.
	CalendarAsOf time.Time
}

// SupportOf returns where minor v stands in c at asOf (Standing), as a
// value.
func (c Calendar) SupportOf(v Version, asOf time.Time) Support {
	st, e, days := c.Standing(v, asOf)
	return Support{Minor: v, AsOf: asOf, Standing: st, Entry: e, Days: days, CalendarAsOf: c.AsOf}
}

// Dated reports whether s has an end-of-life date: the minor is in the
// calendar with one (supported, ending soon or ended).
func (s Support) Dated() bool {
	return s.Standing == StandingSupported || s.Standing == StandingEndingSoon || s.Standing == StandingEnded
}

// Plural is n and unit, with an s when n is not 1: "1 day", "3 days".
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// day is the calendar day y-m-d (UTC midnight).
func Day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// DateOf is t's calendar day in t's own location, as a UTC midnight.
func DateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return Day(y, m, d)
}
