package views

import (
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
)

// SupportText says what the calendar findings say, on the same days: 1.37's
// end of life is 2027-10-28 (published); the notice starts 90 days before.
func TestSupportTextFollowsTheFindingsRule(t *testing.T) {
	v := kube.ParseVersion("v1.37.2")
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	at := func(v kube.Version, asOf string) kube.Support { return kube.UpstreamCalendar().SupportOf(v, day(asOf)) }
	for _, tc := range []struct{ asOf, want, short string }{
		{"2026-12-01", "supported upstream until 2027-10-28", "until 2027-10-28"},
		{"2027-07-30", "end of life upstream on 2027-10-28, in 90 days", "EOL in 90 days"},
		{"2027-10-28", "end of life upstream since 2027-10-28", "EOL since 2027-10-28"},
	} {
		if got := SupportText(at(v, tc.asOf), false); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.asOf, got, tc.want)
		}
		if got := SupportText(at(v, tc.asOf), true); got != tc.short {
			t.Errorf("%s short: %q, want %q", tc.asOf, got, tc.short)
		}
		_, finding := plan.JudgeSupport(kube.UpstreamCalendar(), v, "x", day(tc.asOf))
		if finding != (tc.asOf != "2026-12-01") {
			t.Errorf("%s: a finding %v, while the view says %q", tc.asOf, finding, tc.want)
		}
	}
	if got := SupportText(at(kube.ParseVersion("1.20.0"), "2026-12-01"), true); got != "EOL" {
		t.Errorf("a minor older than the calendar: %q, want EOL (the findings say past end of life)", got)
	}
	if got := SupportText(at(kube.ParseVersion("1.38.0"), "2026-12-01"), false); !strings.Contains(got, "(estimated)") {
		t.Errorf("an estimated date is not said: %q", got)
	}
	// The fleet's footnote follows the calendar's flag, and the short text
	// carries the mark whenever the flag is set.
	for _, asOf := range []string{"2026-12-01", "2028-01-01", "2030-01-01"} {
		got, est := supportText(at(kube.ParseVersion("1.38.0"), asOf), true)
		if !est || !strings.HasSuffix(got, "*") {
			t.Errorf("1.38 as of %s: %q, estimated %v; want an estimated date, marked *", asOf, got, est)
		}
	}
	if got, est := supportText(at(kube.ParseVersion("1.33.0"), "2026-12-01"), true); est || strings.Contains(got, "*") {
		t.Errorf("1.33 (a published date): %q, estimated %v", got, est)
	}
}
