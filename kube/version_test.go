package kube

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	type want struct {
		known               bool
		major, minor, patch int
		hasPatch            bool
		pre, suffix         string
		reason              string // a substring of Reason when unknown
	}
	tests := []struct {
		in string
		want
	}{
		// What clusters report (gitVersion).
		{"v1.37.2", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true}},
		{"1.37.2", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true}},
		{"v1.30.4-eks-a737599", want{known: true, major: 1, minor: 30, patch: 4, hasPatch: true, suffix: "eks-a737599"}},
		{"v1.37.2-eks-a737599", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true, suffix: "eks-a737599"}},
		{"v1.29.6-gke.1326000", want{known: true, major: 1, minor: 29, patch: 6, hasPatch: true, suffix: "gke.1326000"}},
		{"v1.37.2+rke2r1", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true, suffix: "rke2r1"}},
		{"v1.34.1+rke2r1", want{known: true, major: 1, minor: 34, patch: 1, hasPatch: true, suffix: "rke2r1"}},
		{"v1.30.2+k3s1", want{known: true, major: 1, minor: 30, patch: 2, hasPatch: true, suffix: "k3s1"}},
		{"v1.31.0-rc.1", want{known: true, major: 1, minor: 31, hasPatch: true, pre: "rc.1"}},
		{"v1.38.0-beta.0", want{known: true, major: 1, minor: 38, hasPatch: true, pre: "beta.0"}},
		{"1.37.0-alpha.1+abc", want{known: true, major: 1, minor: 37, hasPatch: true, pre: "alpha.1", suffix: "abc"}},
		{"v1.28.9-aliyun.1", want{known: true, major: 1, minor: 28, patch: 9, hasPatch: true, suffix: "aliyun.1"}},
		{"v1.27.16-rc.0+vmware.1", want{known: true, major: 1, minor: 27, patch: 16, hasPatch: true, pre: "rc.0", suffix: "vmware.1"}},
		{"v1.30.0-rcx", want{known: true, major: 1, minor: 30, hasPatch: true, suffix: "rcx"}},
		// Other spellings.
		{"V1.37.2", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true}},
		{"  v1.37.2\n", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true}},
		{"1.37", want{known: true, major: 1, minor: 37}},
		{"v1.37", want{known: true, major: 1, minor: 37}},
		{"1.21+", want{known: true, major: 1, minor: 21}},
		{"1.37+", want{known: true, major: 1, minor: 37}},
		{"1.037.2", want{known: true, major: 1, minor: 37, patch: 2, hasPatch: true}},
		// Not versions: unknown, with why.
		{"", want{reason: "empty"}},
		{"   ", want{reason: "empty"}},
		{"garbage", want{reason: `"garbage" is not a Kubernetes version`}},
		{"latest", want{reason: "is not a Kubernetes version"}},
		{"1", want{reason: "is not a Kubernetes version"}},
		{"v", want{reason: "is not a Kubernetes version"}},
		{"1.37.2.1", want{reason: "is not a Kubernetes version"}},
		{"1..2", want{reason: "is not a Kubernetes version"}},
		{"1.x", want{reason: "is not a Kubernetes version"}},
		{"-1.37", want{reason: "is not a Kubernetes version"}},
		{"1.-37", want{reason: "is not a Kubernetes version"}},
		{"v 1.37", want{reason: "is not a Kubernetes version"}},
		{"1. 37", want{reason: "is not a Kubernetes version"}},
		{"vv1.37", want{reason: "is not a Kubernetes version"}},
		{"1.37.2-", want{reason: "empty suffix"}},
		{"1.37.2-rc 1", want{reason: "spaces"}},
		{"1.99999999999.0", want{reason: "is not a Kubernetes version"}},
		{"v0.0.0-master+$Format:%H$", want{reason: "without version information"}},
		{"v0.0.0", want{reason: "without version information"}},
	}
	for _, tc := range tests {
		got := ParseVersion(tc.in)
		if got.Raw != tc.in {
			t.Errorf("ParseVersion(%q).Raw = %q: the string must be kept as given", tc.in, got.Raw)
		}
		if got.Known != tc.known {
			t.Errorf("ParseVersion(%q).Known = %v (reason %q), want %v", tc.in, got.Known, got.Reason, tc.known)
			continue
		}
		if !tc.known {
			if got.Reason == "" || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("ParseVersion(%q).Reason = %q, want it to contain %q", tc.in, got.Reason, tc.reason)
			}
			if got.MinorString() != "" || got.Canonical() != "" {
				t.Errorf("ParseVersion(%q): an unknown version has minor %q, canonical %q", tc.in, got.MinorString(), got.Canonical())
			}
			continue
		}
		if got.Reason != "" || got.Major != tc.major || got.Minor != tc.minor || got.Patch != tc.patch || got.HasPatch != tc.hasPatch || got.Pre != tc.pre || got.Suffix != tc.suffix {
			t.Errorf("ParseVersion(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestVersionStrings(t *testing.T) {
	for in, want := range map[string][3]string{ // String, MinorString, Canonical
		"v1.34.1+rke2r1":     {"v1.34.1+rke2r1", "1.34", "1.34.1"},
		"1.37":               {"1.37", "1.37", "1.37"},
		"V1.38.0-rc.1":       {"V1.38.0-rc.1", "1.38", "1.38.0-rc.1"},
		"1.37.0-alpha.1+abc": {"1.37.0-alpha.1+abc", "1.37", "1.37.0-alpha.1"},
	} {
		v := ParseVersion(in)
		if got := [3]string{v.String(), v.MinorString(), v.Canonical()}; got != want {
			t.Errorf("%q: String, MinorString, Canonical = %q, want %q", in, got, want)
		}
	}
	if got := (Version{Known: true, Major: 1, Minor: 38}).String(); got != "1.38" {
		t.Errorf("String of a Version without Raw = %q, want the canonical 1.38", got)
	}
}

// version.Info's Major and Minor fields, with the "+" some providers add.
func TestParseVersionInfo(t *testing.T) {
	tests := []struct {
		major, minor, git string
		known             bool
		minorString, raw  string
	}{
		{"1", "37", "v1.37.2", true, "1.37", "v1.37.2"},
		{"1", "37+", "v1.37.2-eks-a737599", true, "1.37", "v1.37.2-eks-a737599"},
		{"1", "37+", "", true, "1.37", "1.37+"},
		{"1", "21+", "garbage", true, "1.21", "1.21+"},
		{" 1 ", "21+", "v0.0.0-master+$Format:%H$", true, "1.21", "1.21+"},
		{"", "", "", false, "", ""},
		{"1", "x+", "nope", false, "", "nope"},
		{"1", "21++", "", false, "", ""},
	}
	for _, tc := range tests {
		v := ParseVersionInfo(tc.major, tc.minor, tc.git)
		if v.Known != tc.known || v.MinorString() != tc.minorString || v.Raw != tc.raw {
			t.Errorf("ParseVersionInfo(%q, %q, %q) = %+v, want known %v minor %q raw %q", tc.major, tc.minor, tc.git, v, tc.known, tc.minorString, tc.raw)
		}
		if !v.Known && (!strings.Contains(v.Reason, "major") || v.Reason == "") {
			t.Errorf("ParseVersionInfo(%q, %q, %q): reason %q should say both failed", tc.major, tc.minor, tc.git, v.Reason)
		}
	}
}

func TestParseDesiredVersion(t *testing.T) {
	for in, wantErr := range map[string]string{
		"1.37":          "",
		"v1.37":         "",
		"1.37.2":        "",
		"V1.37.2":       "",
		"latest":        "is not a Kubernetes version",
		"1":             "is not a Kubernetes version",
		"1.37.2.1":      "is not a Kubernetes version",
		"":              "empty",
		"1.37.2+rke2r1": "provider suffix",
		"1.38.0-rc.1":   "pre-release",
		"1.37+":         "provider suffix",
		"1.37-eks-1":    "provider suffix",
	} {
		_, err := ParseDesiredVersion(in)
		if (wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("ParseDesiredVersion(%q) = %v, want error containing %q", in, err, wantErr)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"v1.37.2", "1.37.2", 0},
		{"v1.37.2+rke2r1", "v1.37.2-eks-1", 0}, // suffixes never count
		{"v1.37.2", "v1.37.10", -1},
		{"v1.38.0", "v1.37.99", 1},
		{"v2.0.0", "v1.99.0", 1},
		{"v1.38.0-rc.1", "v1.38.0", -1},
		{"v1.38.0-alpha.3", "v1.38.0-beta.0", -1},
		{"v1.38.0-rc.0", "v1.38.0-beta.2", 1},
		{"v1.38.0-rc.2", "v1.38.0-rc.10", -1},
		{"1.37", "1.37.0", 0},
	} {
		a, b := ParseVersion(tc.a), ParseVersion(tc.b)
		if got := CompareVersions(a, b); got != tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := CompareVersions(b, a); got != -tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

// Satisfies is the rule the old VersionMatches held: a minor compares the
// minor, a full version the patch too.
func TestSatisfies(t *testing.T) {
	for _, tc := range []struct {
		actual, desired string
		want            bool
	}{
		{"v1.37.2", "1.37", true},
		{"1.37.0", "v1.37", true},
		{"v1.37.2", "1.36", false},
		{"v1.37.2", "1.37.2", true},
		{"v1.37.2", "1.37.1", false},
		{"v1.37.2+k3s1", "1.37", true},
		{"v1.37.2-eks-a737599", "1.37.2", true},
		{"v1.38.0-rc.1", "1.38", true},
		{"v1.38.0-rc.1", "1.38.0", false},
		{"1.37", "1.37.0", true}, // a minor alone counts as .0
	} {
		if got := ParseVersion(tc.actual).Satisfies(ParseVersion(tc.desired)); got != tc.want {
			t.Errorf("%s satisfies %s = %v, want %v", tc.actual, tc.desired, got, tc.want)
		}
	}
}
