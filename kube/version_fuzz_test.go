package kube

import (
	"strings"
	"testing"
)

// FuzzParseVersion: ParseVersion never panics; it keeps the raw string; an
// unknown version always says why; a known one written back in canonical
// form parses to the same numbers (canonicalisation is idempotent), and two
// spellings with the same canonical form compare equal.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v1.37.2", "1.37", "V1.36", " v1.30.4-eks-a737599 ", "v1.29.6-gke.1326000", "v1.37.2+rke2r1",
		"v1.30.2+k3s1", "v1.31.0-rc.1", "1.37.0-alpha.1+abc", "v0.0.0-master+$Format:%H$", "", "garbage", "1", "1.2.3.4", "v1.99999999999999999999.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseVersion(s)
		if v.Raw != s {
			t.Fatalf("ParseVersion(%q).Raw = %q", s, v.Raw)
		}
		if !v.Known {
			if strings.TrimSpace(v.Reason) == "" {
				t.Fatalf("ParseVersion(%q) is unknown without a reason", s)
			}
			return
		}
		c := ParseVersion(v.Canonical())
		if !c.Known || c.Major != v.Major || c.Minor != v.Minor || c.Patch != v.Patch || c.HasPatch != v.HasPatch {
			t.Fatalf("ParseVersion(%q) = %+v, but its canonical form %q parses to %+v", s, v, v.Canonical(), c)
		}
		if c.Canonical() != v.Canonical() {
			t.Fatalf("canonical form of %q is not a fixed point: %q → %q", s, v.Canonical(), c.Canonical())
		}
		if CompareVersions(v, c) != 0 {
			t.Fatalf("CompareVersions(%q, %q) = %d, want 0", s, v.Canonical(), CompareVersions(v, c))
		}
	})
}
