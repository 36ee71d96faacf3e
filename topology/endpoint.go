package topology

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// This file is the one home of the endpoint rule: how an API server URL is
// written canonically, so that two spellings of one server compare equal.
// The loader checks a topology's endpoint: with it, and the target guard
// (package probes) compares a kubeconfig's server with it.

// NormalizeEndpoint returns the canonical form of an API server URL, for
// comparing a kubeconfig's server with a topology's `endpoint:` (ARCHITECTURE.md
// "The target and its confirmation"): scheme and host name lower-cased, the
// port made explicit (443 for https, 80 for http) and written as a plain
// number (no leading zeros), the path kept without its trailing slash.
// "HTTPS://Api.Example:443/" → "https://api.example:443".
//
// An IP literal host is compared as an address, not as text: it is parsed
// with net/netip and written in its canonical form (RFC 5952 for IPv6:
// lower case, leading zeros dropped, the longest run of zero groups
// compressed), so "https://[2001:DB8:0:0:0:0:0:010]:6443" →
// "https://[2001:db8::10]:6443". An IPv4-mapped IPv6 address is the IPv4
// address it maps ("https://[::ffff:192.0.2.1]" → "https://192.0.2.1:443"):
// Go's net package, and so client-go, dials the IPv4 address for it
// (net.IP.To4), and Go's TLS verification matches either spelling against
// the same certificate address, so both name the same API server. An IPv6
// zone ("%25eth0") is kept, percent-encoded as RFC 6874 writes it in a URI
// (pctZone). A host that is not an IP literal is
// compared as a lower-cased name (no DNS lookup: two names of one address
// stay different, as nestor cannot know they are the same server offline).
//
// The result is a fixed point: NormalizeEndpoint of a result is that result.
//
// Errors: not a URL (an IPv6 literal without brackets gets the fix, see
// IPv6BracketHint); a scheme other than http/https; no host; a
// port that is empty, not a number or out of 1..65535 (it is written
// without leading zeros); a host other than an IP literal that is not an
// ASCII DNS name; user info, query or fragment in the URL (the error never
// repeats user info).
func NormalizeEndpoint(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		if hint := IPv6BracketHint(s); hint != "" {
			return "", fmt.Errorf("endpoint %q is not a URL: %s", RedactUserInfo(s), hint)
		}
		return "", fmt.Errorf("endpoint %q is not a URL: write https://HOST:PORT", RedactUserInfo(s))
	}
	shown := RedactUserInfo(s)
	if u.User != nil {
		return "", fmt.Errorf("endpoint %s must not carry a user name or password: write https://HOST:PORT", shown)
	}
	scheme := strings.ToLower(u.Scheme)
	var defPort string
	switch scheme {
	case "https":
		defPort = "443"
	case "http":
		defPort = "80"
	case "":
		return "", fmt.Errorf("endpoint %q has no scheme: write https://HOST:PORT", shown)
	default:
		return "", fmt.Errorf("endpoint %q: scheme %q is not http or https", shown, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("endpoint %q has no host: write https://HOST:PORT", shown)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("endpoint %q: an API server URL has no query or fragment", shown)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("endpoint %q has no host: write https://HOST:PORT", shown)
	}
	a, err := netip.ParseAddr(host)
	if bracketed := strings.HasPrefix(u.Host, "["); bracketed != (err == nil && a.Is6()) {
		if bracketed {
			return "", fmt.Errorf("endpoint %q: only an IPv6 address is written in brackets, not %q", shown, host)
		}
		return "", fmt.Errorf("endpoint %q: the IPv6 address %s must be written in brackets: https://[%s]", shown, host, host)
	}
	if err == nil {
		a = a.Unmap()
		host = a.String()
		if a.Is6() {
			zone := a.Zone()
			host = "[" + a.WithZone("").String()
			if zone != "" {
				host += "%25" + pctZone(zone)
			}
			host += "]"
		}
	} else {
		host = strings.ToLower(host)
	}
	port := u.Port()
	if port == "" {
		if strings.HasSuffix(u.Host, ":") {
			return "", fmt.Errorf("endpoint %q has an empty port", shown)
		}
		port = defPort
	}
	if strings.TrimLeft(port, "0123456789") != "" {
		return "", fmt.Errorf("endpoint %q: port %q is not a number", shown, port)
	}
	// A port is a number (RFC 3986 3.2.3: leading zeros allowed): written
	// canonically, and in the TCP range.
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("endpoint %q: port %s is out of range (1-65535)", shown, port)
	}
	if !strings.Contains(host, ":") && !validHostName(host) {
		return "", fmt.Errorf("endpoint %q: host %q is not a DNS name or an IP address (write an internationalised name in its xn-- form)", shown, host)
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	return scheme + "://" + host + ":" + strconv.Itoa(n) + path, nil
}

// validHostName reports whether host is made of the characters of a DNS
// name or an IPv4 address: ASCII letters, digits, '-', '.' and '_' (found in
// some internal names, and accepted by Go's resolver).
func validHostName(host string) bool {
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return host != ""
}

// SameEndpoint reports whether a and b name the same API server after
// NormalizeEndpoint. The error is the first normalisation error.
func SameEndpoint(a, b string) (bool, error) {
	na, err := NormalizeEndpoint(a)
	if err != nil {
		return false, err
	}
	nb, err := NormalizeEndpoint(b)
	if err != nil {
		return false, err
	}
	return na == nb, nil
}

// RedactUserInfo drops anything that looks like user info from a URL-ish
// string before it goes into an error: "https://u:p@h" → "https://REDACTED@h".
func RedactUserInfo(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "REDACTED@" + s[i+1:]
		}
		return "REDACTED@" + s[i+1:]
	}
	return s
}

// pctZone percent-encodes an IPv6 zone for a URI (RFC 6874 §2: ZoneID =
// 1*( unreserved / pct-encoded )): every ASCII byte but the unreserved ones
// (RFC 3986 §2.3: letters, digits, - . _ ~) is written %XX. Bytes above
// 0x7F are kept as they are: Go's net/url, and so client-go, accepts them
// raw in a zone and refuses them percent-encoded.
func pctZone(zone string) string {
	var b strings.Builder
	for i := 0; i < len(zone); i++ {
		c := zone[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c > 0x7f {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
