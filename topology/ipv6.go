package topology

import (
	"net/netip"
	"strconv"
	"strings"
)

// IPv6BracketHint returns the fix for a URL whose host is an IPv6 literal
// written without square brackets, such as "https://2001:db8::10:6443": the
// sentence "an IPv6 literal needs brackets: https://[2001:db8::10]:6443". It
// returns "" when raw is not such a URL (its host already in brackets, not
// an IPv6 address, user info before the host, …).
//
// The rule is RFC 3986 section 3.2.2: an IPv6 address in a URL is enclosed
// in "[ ]", so the colons of the address are not read as the port
// separator. Go's net/url refuses the unbracketed form (since Go 1.26), and
// so do client-go and kubectl. raw may have no scheme (a kubeconfig server:
// "2001:db8::10:6443" is read by client-go as https); the suggestion then
// says https://.
//
// When the text can be read both ways (the last group could be the port, or
// part of the address: "2001:db8::10:6443"), the reading with a port comes
// first and the other is named as well, so the operator chooses. A zone
// ("fe80::1%eth0") is written "%25" in the suggestion, as a URL needs.
func IPv6BracketHint(raw string) string {
	s := strings.TrimSpace(raw)
	scheme := "https://"
	rest := s
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = s[:i+3], s[i+3:]
	}
	hostport, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		hostport, tail = rest[:i], rest[i:]
	}
	if strings.ContainsAny(hostport, "[]@") || strings.Count(hostport, ":") < 2 {
		return ""
	}
	var readings []string
	if i := strings.LastIndex(hostport, ":"); i > 0 {
		if host, port := hostport[:i], hostport[i+1:]; isIPv6(host) && isPort(port) {
			readings = append(readings, scheme+"["+escapeZone(host)+"]:"+port+tail)
		}
	}
	if isIPv6(hostport) {
		readings = append(readings, scheme+"["+escapeZone(hostport)+"]"+tail)
	}
	switch len(readings) {
	case 0:
		return ""
	case 1:
		return "an IPv6 literal needs brackets: " + readings[0]
	}
	return "an IPv6 literal needs brackets: " + readings[0] + " (or " + readings[1] + " if the last group is part of the address, not the port)"
}

// isIPv6 reports whether s is an IPv6 address (with or without a zone).
func isIPv6(s string) bool {
	a, err := netip.ParseAddr(strings.Replace(s, "%25", "%", 1))
	return err == nil && a.Is6()
}

// isPort reports whether s is a TCP port number, 1 to 65535, digits only.
func isPort(s string) bool {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535
}

// escapeZone writes the zone of an IPv6 literal as a URL needs it:
// "fe80::1%eth0" → "fe80::1%25eth0", the zone itself through pctZone
// (RFC 6874). A literal already written with %25 is kept.
func escapeZone(host string) string {
	addr, zone, ok := strings.Cut(host, "%")
	if !ok || strings.Contains(host, "%25") {
		return host
	}
	return addr + "%25" + pctZone(zone)
}
