package topology

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"go4.org/netipx"
	"gopkg.in/yaml.v3"
)

// KeyACL is the Positions key of scaleway.acl: who may reach a managed
// cluster's API server.
const KeyACL = "scaleway.acl"

// aclKeys are the keys of a scaleway.acl entry written as a mapping.
var aclKeys = []string{"ip", "scaleway_ranges"}

// ACLRule is one rule of a managed cluster's API server ACL, as the
// provider's API describes it (scaleway-sdk-go api/k8s/v1 ACLRule:
// "precisely one of IP, ScalewayRanges must be set"): IP, an address range
// in CIDR notation, or ScalewayRanges, the provider's own ranges; with the
// rule's Description (the API's; a topology declares none). A declared
// rule's IP is canonical (ParseACLRange); a read one is as the API wrote it.
type ACLRule struct {
	IP             string `json:"ip,omitempty"`
	ScalewayRanges bool   `json:"scaleway_ranges,omitempty"`
	Description    string `json:"description,omitempty"`
}

// String is the rule as a topology writes it: its CIDR, or
// "scaleway_ranges".
func (r ACLRule) String() string {
	if r.ScalewayRanges {
		return "scaleway_ranges"
	}
	return r.IP
}

// Prefix is the range r admits, normalised: its host bits cleared and an
// IPv4-mapped IPv6 range (::ffff:a.b.c.d/96+n) written as the IPv4 range it
// maps; false for the provider's ranges and for an IP that is no CIDR. A
// bare address is the one host (/32, /128), as the provider's SDK reads it
// (scaleway-sdk-go scw.IPNet.UnmarshalJSON).
func (r ACLRule) Prefix() (netip.Prefix, bool) {
	if r.ScalewayRanges {
		return netip.Prefix{}, false
	}
	s := strings.TrimSpace(r.IP)
	p, err := netip.ParsePrefix(s)
	if err != nil {
		a, aerr := netip.ParseAddr(s)
		if aerr == nil && a.Zone() == "" {
			p = netip.PrefixFrom(a, a.BitLen())
		} else if _, n, nerr := net.ParseCIDR(s); nerr == nil {
			// net accepts what netip refuses ("10.0.0.0/08"), as the SDK does.
			ones, _ := n.Mask.Size()
			a, _ := netip.AddrFromSlice(n.IP)
			p = netip.PrefixFrom(a.Unmap(), ones)
			if a.Is4In6() && len(n.Mask) == net.IPv6len {
				p = netip.PrefixFrom(a, ones)
			}
		} else {
			return netip.Prefix{}, false
		}
	}
	return unmapPrefix(p.Masked()), p.IsValid()
}

// mapped4 is the IPv4-mapped IPv6 range (RFC 4291 §2.5.5.2): an address in
// it is an IPv4 address.
var mapped4 = netip.MustParsePrefix("::ffff:0:0/96")

// unmapPrefix writes an IPv4-mapped IPv6 prefix of 96 bits or more as the
// IPv4 prefix it maps; any other prefix is returned as it is.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p
}

// aclKey is the form rules are compared in: the normalised range, or
// "scaleway_ranges"; a rule whose IP is no CIDR is compared as written.
func aclKey(r ACLRule) string {
	if r.ScalewayRanges {
		return "scaleway_ranges"
	}
	if p, ok := r.Prefix(); ok {
		return p.String()
	}
	return "ip " + r.IP
}

// ACLDiff compares the declared rules with the read ones as sets (the
// provider's API returns its rules sorted by ip, a topology in the order
// written; descriptions are not compared): added are the declared rules
// the cluster lacks, removed the cluster's rules not declared, each sorted
// by its compared form. Both empty: the ACL is the declared one.
func ACLDiff(declared, actual []ACLRule) (added, removed []ACLRule) {
	has := func(rules []ACLRule, r ACLRule) bool {
		return slices.ContainsFunc(rules, func(x ACLRule) bool { return aclKey(x) == aclKey(r) })
	}
	for _, r := range declared {
		if !has(actual, r) && !has(added, r) {
			added = append(added, r)
		}
	}
	for _, r := range actual {
		if !has(declared, r) && !has(removed, r) {
			removed = append(removed, r)
		}
	}
	byKey := func(a, b ACLRule) int { return strings.Compare(aclKey(a), aclKey(b)) }
	slices.SortFunc(added, byKey)
	slices.SortFunc(removed, byKey)
	return added, removed
}

// ACLRulesText writes rules for a sentence ("0.0.0.0/0, scaleway_ranges"),
// "none" when there are none.
func ACLRulesText(rules []ACLRule) string {
	if len(rules) == 0 {
		return "none"
	}
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// ACLOpening is what ACLOpen found: the address space the rules admit
// whole (What), and the rules that admit it.
type ACLOpening struct {
	What  string
	Rules []ACLRule
}

// The address spaces an ACL must not admit whole: every IPv4 address, and
// every IPv6 address routed on the internet — IANA's global unicast space
// 2000::/3 (RFC 4291 §2.4; ::/0 holds it).
var (
	everyIPv4     = netip.MustParsePrefix("0.0.0.0/0")
	everyIPv6     = netip.MustParsePrefix("::/0")
	internetIPv6  = netip.MustParsePrefix("2000::/3")
	openIPv4Words = "every IPv4 address"
	openIPv6Words = "every IPv6 address"
	openNetWords  = "every IPv6 address of the internet (2000::/3)"
)

// ACLOpen reports whether rules, together, admit every address of a
// family: every IPv4 address (0.0.0.0/0 in any spelling — host bits set,
// 0.0.0.0/00, ranges that add up to it, or IPv4-mapped IPv6 ranges such as
// ::ffff:0:0/96, which a dual-stack server reads as IPv4), or every IPv6
// address of the internet (::/0, 2000::/3, or ranges that cover it). The
// provider documents its default entry 0.0.0.0/0 as one that "enables any
// host to establish a connection" (Scaleway, "Managing allowed IP addresses
// for Kubernetes products"). The provider's own ranges (scaleway_ranges)
// and a rule whose IP is no CIDR admit no such space.
func ACLOpen(rules []ACLRule) []ACLOpening {
	var b netipx.IPSetBuilder
	contributes := map[netip.Prefix][]ACLRule{}
	for _, r := range rules {
		p, ok := r.Prefix()
		if !ok {
			continue
		}
		ranges := []netip.Prefix{p}
		if p.Addr().Is6() && p.Bits() < 96 && p.Overlaps(mapped4) {
			ranges = append(ranges, everyIPv4) // holds every IPv4-mapped address
		}
		for _, q := range ranges {
			b.AddPrefix(q)
			contributes[q] = append(contributes[q], r)
		}
	}
	// IPSet fails only for an invalid prefix added, and every prefix added
	// here comes from ACLRule.Prefix, which gives valid ones only.
	set, err := b.IPSet()
	if err != nil {
		panic("kapsule ACL: " + err.Error())
	}
	var out []ACLOpening
	for _, space := range []struct {
		p    netip.Prefix
		what string
	}{{everyIPv4, openIPv4Words}, {everyIPv6, openIPv6Words}, {internetIPv6, openNetWords}} {
		if !set.ContainsPrefix(space.p) {
			continue
		}
		if space.p == internetIPv6 && set.ContainsPrefix(everyIPv6) {
			continue // said as every IPv6 address
		}
		out = append(out, ACLOpening{What: space.what, Rules: admitting(rules, contributes, space.p)})
	}
	return out
}

// admitting are the rules that admit space: those that hold it whole when
// any does, else every rule whose range overlaps it (together they do), in
// the rules' order, each once.
func admitting(rules []ACLRule, contributes map[netip.Prefix][]ACLRule, space netip.Prefix) []ACLRule {
	var whole, part []ACLRule
	for q, rs := range contributes {
		if !q.Overlaps(space) {
			continue
		}
		if q.Bits() <= space.Bits() { // overlapping and no longer: it holds space
			whole = append(whole, rs...)
		} else {
			part = append(part, rs...)
		}
	}
	pick := part
	if len(whole) > 0 {
		pick = whole
	}
	var out []ACLRule
	for _, r := range rules {
		if slices.Contains(pick, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// ParseACLRange reads s, a range written in a topology, into its canonical
// CIDR: an IPv4 or IPv6 prefix with no host bits, or a bare address, which
// is its one host (/32, /128); an IPv4-mapped IPv6 range becomes the IPv4
// range it maps, and note says so. A string that is no such range, or a
// range with host bits (is 10.1.2.3/24 the network 10.1.2.0/24 or the host
// 10.1.2.3/32?), is an error whose fix names what to write.
func ParseACLRange(s string) (canonical, note string, err error) {
	return parseRange(s, true)
}

// rangeError is a range refused at load: Msg what is wrong, Fix what to
// write.
type rangeError struct{ Msg, Fix string }

func (e *rangeError) Error() string { return e.Msg + " (" + e.Fix + ")" }

// parseRange is ParseACLRange; hostOK false refuses a bare address (a
// pod or service range is a network).
func parseRange(s string, hostOK bool) (canonical, note string, err error) {
	p, perr := netip.ParsePrefix(s)
	if perr != nil {
		if a, aerr := netip.ParseAddr(s); aerr == nil && a.Zone() == "" {
			if !hostOK {
				return "", "", &rangeError{fmt.Sprintf("%q is an address, not a range", s), "write a range in CIDR notation, e.g. " + netip.PrefixFrom(a, a.BitLen()-8).Masked().String()}
			}
			p = netip.PrefixFrom(a, a.BitLen())
		} else {
			fix := "write a range in CIDR notation, e.g. 203.0.113.0/24 or 2001:db8::/32"
			if _, n, nerr := net.ParseCIDR(strings.TrimSpace(s)); nerr == nil {
				fix = "write it " + n.String()
			} else if strings.Contains(s, "%") {
				fix = "remove the zone (%…): a range has none"
			}
			return "", "", &rangeError{fmt.Sprintf("%q is not a range in CIDR notation", s), fix}
		}
	}
	if m := p.Masked(); m != p {
		host := netip.PrefixFrom(p.Addr(), p.Addr().BitLen())
		fix := fmt.Sprintf("write %s for the network, or %s for the one host", m, host)
		if m.Bits() == 0 {
			fix = fmt.Sprintf("write %s, which admits every address, or %s for the one host", m, host)
		}
		return "", "", &rangeError{fmt.Sprintf("%q has host bits set after /%d", s, p.Bits()), fix}
	}
	if u := unmapPrefix(p); u != p {
		note = fmt.Sprintf("%s is an IPv4-mapped IPv6 range: compared as the IPv4 range %s", p, u)
		p = u
	}
	return p.String(), note, nil
}

// warn adds a load warning at n (Topology.Warnings: "FILE:LINE:COL: FIELD:
// MSG (FIX)").
func (p *parser) warn(t *Topology, n *yaml.Node, field, fix, format string, args ...any) {
	w := &Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...), Fix: fix}
	if n != nil {
		w.Line, w.Column = n.Line, n.Column
	}
	t.Warnings = append(t.Warnings, w.Error())
}

// acl reads scaleway.acl: a list whose entries are a range in CIDR
// notation (ParseACLRange) or {scaleway_ranges: true} ({ip: CIDR} is the
// same as the CIDR alone). An empty list, a repeated rule (compared
// canonically), scaleway_ranges twice (the API holds one) or false are
// errors; what a rule admits is judged with the plan (ACLOpen).
func (p *parser) acl(t *Topology, s *Scaleway, key, v *yaml.Node) {
	t.setPosition(KeyACL, key)
	const field = "scaleway.acl"
	r := resolve(v)
	switch {
	case isNull(r) || r.Kind == yaml.SequenceNode && len(r.Content) == 0:
		p.add(r, field, "list the ranges that may reach the API server, e.g. - 203.0.113.0/24, or remove the key to leave the ACL undeclared", "is empty: an ACL with no rule is not declared")
		return
	case r.Kind != yaml.SequenceNode:
		p.add(r, field, "write a list: - 203.0.113.0/24, - scaleway_ranges: true", "must be a list, found %s", kindName(r))
		return
	}
	rules := []ACLRule{}
	first := map[string]int{}
	for i, item := range r.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		at := resolve(item)
		var rule ACLRule
		var ipNode *yaml.Node
		switch at.Kind {
		case yaml.ScalarNode:
			ipNode = at
		case yaml.MappingNode:
			var rangesNode *yaml.Node
			for _, kv := range p.pairs(at, f) {
				switch kv.key.Value {
				case "ip":
					ipNode = resolve(kv.value)
				case "scaleway_ranges":
					rangesNode = resolve(kv.value)
				default:
					p.unknownKey(kv.key, f, aclKeys)
				}
			}
			switch {
			case ipNode != nil && rangesNode != nil:
				p.add(at, f, "write two entries: - "+ipNode.Value+" and - scaleway_ranges: true", "an entry is either ip or scaleway_ranges, not both")
				continue
			case rangesNode != nil:
				var on bool
				if rangesNode.Kind != yaml.ScalarNode || rangesNode.Tag != "!!bool" || rangesNode.Decode(&on) != nil || !on {
					p.add(rangesNode, f+".scaleway_ranges", "write scaleway_ranges: true, or remove the entry", "must be true, found %s", rangesNode.Value)
					continue
				}
				rule.ScalewayRanges = true
			case ipNode == nil:
				p.add(at, f, "write a range: - 203.0.113.0/24, or - scaleway_ranges: true", "an entry needs ip or scaleway_ranges")
				continue
			}
		default:
			p.add(at, f, "write a range: - 203.0.113.0/24, or - scaleway_ranges: true", "must be a range or a mapping, found %s", kindName(at))
			continue
		}
		if ipNode != nil {
			text, ok := p.str(ipNode, f)
			if !ok {
				if isNull(ipNode) {
					p.add(ipNode, f, "write a range, or remove the entry", "empty rule")
				}
				continue
			}
			canonical, note, err := ParseACLRange(text)
			if re, bad := err.(*rangeError); bad {
				if text == "scaleway_ranges" {
					re.Fix = "write it as - scaleway_ranges: true"
				}
				p.add(ipNode, f, re.Fix, "%s", re.Msg)
				continue
			}
			if note != "" {
				p.warn(t, ipNode, f, "write "+canonical, "%s", note)
			}
			rule.IP = canonical
		}
		k := aclKey(rule)
		if line, dup := first[k]; dup {
			what := "rule " + rule.String()
			if rule.ScalewayRanges {
				what = "scaleway_ranges (the API holds one such rule)"
			}
			p.add(at, f, "remove one of them", "duplicate %s (first declared at line %d)", what, line)
			continue
		}
		first[k] = at.Line
		rules = append(rules, rule)
	}
	s.ACL = rules
}

// SameRange reports whether a and b, two ranges in CIDR notation (as a
// topology or the provider's API writes them), are the same range once
// normalised (ACLRule.Prefix): host bits cleared, IPv4-mapped ranges as
// IPv4. Two texts that are no range are the same only when equal.
func SameRange(a, b string) bool {
	pa, okA := ACLRule{IP: a}.Prefix()
	pb, okB := ACLRule{IP: b}.Prefix()
	if !okA || !okB {
		return a == b
	}
	return pa == pb
}
