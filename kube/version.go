package kube

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes version as a cluster reports it or a topology
// declares it, parsed once. Raw keeps the string as given, for display.
//
// A version that does not parse is never dropped: Known is false and Reason
// says why, so a caller reports it as unknown instead of guessing.
type Version struct {
	// Raw is the string as given ("v1.30.4-eks-a737599", "1.37").
	Raw string `json:"raw"`
	// Known is true when Raw parsed; Reason says why not otherwise.
	Known  bool   `json:"known"`
	Reason string `json:"reason,omitempty"`

	Major int `json:"major"`
	Minor int `json:"minor"`
	// Patch is 0 when HasPatch is false ("1.37", a minor).
	Patch    int  `json:"patch"`
	HasPatch bool `json:"has_patch"`
	// Pre is the pre-release ("alpha.1", "beta.0", "rc.1"), "" for a release.
	Pre string `json:"pre,omitempty"`
	// Suffix is what a distribution or provider appends after "-" or "+"
	// ("eks-a737599", "gke.1326000", "rke2r1", "k3s1"), or the build
	// metadata after "+" ("abc" of "1.37.0-alpha.1+abc"). It never changes
	// the version's order.
	Suffix string `json:"suffix,omitempty"`
}

// ParseVersion parses s, a Kubernetes version as clusters and users write it,
// and always returns a Version: Known with its numbers, or unknown with the
// Reason.
//
// Accepted, after surrounding spaces are trimmed: an optional "v" or "V";
// MAJOR.MINOR or MAJOR.MINOR.PATCH (decimal digits, no sign); then optionally
// a pre-release "-alpha.N", "-beta.N" or "-rc.N" (Kubernetes' own release
// tags, kubernetes/sig-release "Kubernetes Release Versioning"); then
// optionally a suffix after "-" or "+" that distributions and providers add
// to the gitVersion (EKS "v1.30.4-eks-a737599", GKE "v1.29.6-gke.1326000",
// RKE2 "v1.37.2+rke2r1", k3s "v1.30.2+k3s1") or build metadata ("+abc"). A
// trailing "+" alone is accepted: version.Info's Minor field carries one on
// some providers ("21+"). "v0.0.0", what a binary built without version
// information reports (k8s.io/component-base/version's default), is unknown.
func ParseVersion(s string) Version {
	v := Version{Raw: s}
	rest := strings.TrimSpace(s)
	if rest == "" {
		v.Reason = "empty version"
		return v
	}
	if rest[0] == 'v' || rest[0] == 'V' {
		rest = rest[1:]
	}
	core, tail := rest, ""
	if i := strings.IndexAny(rest, "-+"); i >= 0 {
		core, tail = rest[:i], rest[i:]
	}
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		v.Reason = fmt.Sprintf("%q is not a Kubernetes version (MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally v-prefixed)", s)
		return v
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, ok := decimal(p)
		if !ok {
			v.Reason = fmt.Sprintf("%q is not a Kubernetes version (MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally v-prefixed)", s)
			return v
		}
		nums[i] = n
	}
	v.Major, v.Minor = nums[0], nums[1]
	if len(nums) == 3 {
		v.Patch, v.HasPatch = nums[2], true
	}
	if strings.ContainsAny(tail, " \t\r\n") {
		v.Reason = fmt.Sprintf("%q is not a Kubernetes version (spaces in its suffix)", s)
		return v
	}
	switch {
	case tail == "" || tail == "+":
	case tail[0] == '-':
		body := tail[1:]
		suffix := ""
		if i := strings.IndexByte(body, '+'); i >= 0 {
			body, suffix = body[:i], body[i+1:]
		}
		if isPreRelease(body) {
			v.Pre, v.Suffix = body, suffix
		} else {
			v.Suffix = tail[1:]
		}
	default: // '+'
		v.Suffix = tail[1:]
	}
	if v.Major == 0 && v.Minor == 0 && v.Patch == 0 {
		v.Reason = fmt.Sprintf("%q: a build without version information (v0.0.0)", s)
		return v
	}
	if v.Suffix == "" && strings.HasSuffix(tail, "-") {
		v.Reason = fmt.Sprintf("%q is not a Kubernetes version (empty suffix after \"-\")", s)
		return v
	}
	v.Known = true
	return v
}

// ParseVersionInfo returns the version of a /version answer (k8s.io
// apimachinery version.Info): gitVersion when it parses, else the Major and
// Minor fields (Raw is then "MAJOR.MINOR" as given), whose Minor ends in "+"
// on some providers ("21+": a minor with the provider's changes). The result
// is unknown, with both reasons, when neither parses.
func ParseVersionInfo(major, minor, gitVersion string) Version {
	v := ParseVersion(gitVersion)
	if v.Known {
		return v
	}
	maj, mnr := strings.TrimSpace(major), strings.TrimSpace(minor)
	_, majOK := decimal(maj)
	_, minOK := decimal(strings.TrimSuffix(mnr, "+"))
	if m := ParseVersion(maj + "." + strings.TrimSuffix(mnr, "+")); majOK && minOK && m.Known {
		m.Raw = maj + "." + mnr
		return m
	}
	v.Reason = fmt.Sprintf("%s; major %q, minor %q are not a version either", v.Reason, major, minor)
	return v
}

// ParseDesiredVersion parses a topology's kubernetes.version: a minor
// ("1.36") or a full version ("1.36.2"), optionally v-prefixed, and nothing
// else (no pre-release, no provider suffix: a topology declares an upstream
// version). The error says what is wrong.
func ParseDesiredVersion(s string) (Version, error) {
	v := ParseVersion(s)
	switch {
	case !v.Known:
		return v, fmt.Errorf("%s", v.Reason)
	case v.Pre != "" || v.Suffix != "" || strings.HasSuffix(strings.TrimSpace(s), "+"):
		return v, fmt.Errorf("%q carries a pre-release or provider suffix; declare the upstream minor or version", s)
	}
	return v, nil
}

// decimal parses a non-empty run of ASCII digits.
func decimal(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// isPreRelease reports whether s is a Kubernetes pre-release tag: alpha,
// beta or rc, then "." and a number ("rc.1"), as kubernetes/kubernetes tags
// them.
func isPreRelease(s string) bool {
	for _, p := range []string{"alpha", "beta", "rc"} {
		if rest, ok := strings.CutPrefix(s, p+"."); ok {
			_, isNum := decimal(rest)
			return isNum
		}
	}
	return false
}

// MinorString returns "MAJOR.MINOR" ("1.37"); "" when v is unknown.
func (v Version) MinorString() string {
	if !v.Known {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// String returns Raw when set, else the canonical form.
func (v Version) String() string {
	if v.Raw != "" {
		return v.Raw
	}
	return v.Canonical()
}

// Canonical returns "MAJOR.MINOR[.PATCH][-PRE]" without the v, spaces or
// suffix ("1.37.2", "1.38", "1.38.0-rc.1"); "" when v is unknown.
func (v Version) Canonical() string {
	if !v.Known {
		return ""
	}
	s := v.MinorString()
	if v.HasPatch {
		s += "." + strconv.Itoa(v.Patch)
	}
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// CompareMinor orders a and b by major then minor: -1, 0 or 1.
func CompareMinor(a, b Version) int {
	switch {
	case a.Major != b.Major:
		return sign(a.Major - b.Major)
	default:
		return sign(a.Minor - b.Minor)
	}
}

// CompareVersions orders a and b by major, minor, patch (a missing patch
// counts as 0), then pre-release: a release is newer than its pre-releases,
// and alpha < beta < rc, each by its number (semver.org §11, which
// Kubernetes' tags follow). The suffix never counts.
func CompareVersions(a, b Version) int {
	if c := CompareMinor(a, b); c != 0 {
		return c
	}
	if a.Patch != b.Patch {
		return sign(a.Patch - b.Patch)
	}
	switch {
	case a.Pre == b.Pre:
		return 0
	case a.Pre == "":
		return 1
	case b.Pre == "":
		return -1
	}
	ka, na := splitPre(a.Pre)
	kb, nb := splitPre(b.Pre)
	if ka != kb {
		return sign(preRank(ka) - preRank(kb))
	}
	return sign(na - nb)
}

// Satisfies reports whether v (what runs) is the version desired asks for: the
// same minor when desired is a minor ("1.37"), the same patch and release
// when desired is a full version ("1.37.2").
func (v Version) Satisfies(desired Version) bool {
	if CompareMinor(v, desired) != 0 {
		return false
	}
	return !desired.HasPatch || CompareVersions(v, desired) == 0
}

func splitPre(p string) (string, int) {
	kind, num, _ := strings.Cut(p, ".")
	n, _ := decimal(num)
	return kind, n
}

func preRank(kind string) int {
	switch kind {
	case "alpha":
		return 0
	case "beta":
		return 1
	default:
		return 2
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
