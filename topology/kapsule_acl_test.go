package topology

import (
	"reflect"
	"strings"
	"testing"
)

// Every spelling of a range a topology may write: canonical ranges and
// bare addresses load (normalised), host bits and spellings netip refuses
// are errors whose fix names what to write, IPv4-mapped ranges load as the
// IPv4 range with a note.
func TestParseACLRange(t *testing.T) {
	for _, tc := range []struct {
		in, want, note string
		err, fix       string
	}{
		{in: "203.0.113.0/24", want: "203.0.113.0/24"},
		{in: "203.0.113.7", want: "203.0.113.7/32"},
		{in: "0.0.0.0/0", want: "0.0.0.0/0"},
		{in: "2001:DB8::/32", want: "2001:db8::/32"},
		{in: "2001:db8:0:0::/48", want: "2001:db8::/48"},
		{in: "2001:db8::1", want: "2001:db8::1/128"},
		{in: "::/0", want: "::/0"},
		{in: "::ffff:10.0.0.0/104", want: "10.0.0.0/8", note: "IPv4-mapped"},
		{in: "::ffff:0:0/96", want: "0.0.0.0/0", note: "IPv4-mapped"},
		{in: "10.1.2.3/24", err: "host bits set after /24", fix: "write 10.1.2.0/24 for the network, or 10.1.2.3/32 for the one host"},
		{in: "1.2.3.4/0", err: "host bits", fix: "write 0.0.0.0/0, which admits every address, or 1.2.3.4/32 for the one host"},
		{in: "2001:db8::1/32", err: "host bits", fix: "2001:db8::/32"},
		{in: "0/0", err: "not a range in CIDR notation", fix: "203.0.113.0/24"},
		{in: "0.0.0.0/00", err: "not a range", fix: "write it 0.0.0.0/0"},
		{in: "10.0.0.0/08", err: "not a range", fix: "write it 10.0.0.0/8"},
		{in: "010.0.0.0/8", err: "not a range"},
		{in: "fe80::1%eth0/64", err: "not a range", fix: "remove the zone"},
		{in: "10.0.0.0/33", err: "not a range"},
		{in: "", err: "not a range"},
	} {
		got, note, err := ParseACLRange(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.fix) {
				t.Errorf("%q: error %v, want %q with fix %q", tc.in, err, tc.err, tc.fix)
			}
			continue
		}
		if err != nil || got != tc.want || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("%q: %q, note %q, err %v; want %q (note %q)", tc.in, got, note, err, tc.want, tc.note)
		}
	}
}

// ACLOpen finds every way rules admit a whole address space: 0.0.0.0/0 and
// ::/0 as written, the forms the provider's SDK gives back (host bits set,
// IPv4-mapped read as IPv4), ranges that add up to it, an IPv6 range that
// holds every IPv4-mapped address, and the internet's IPv6 space; and none
// where none is whole.
func TestACLOpen(t *testing.T) {
	rules := func(ss ...string) []ACLRule {
		var out []ACLRule
		for _, s := range ss {
			if s == "scaleway_ranges" {
				out = append(out, ACLRule{ScalewayRanges: true})
			} else {
				out = append(out, ACLRule{IP: s})
			}
		}
		return out
	}
	for _, tc := range []struct {
		rules []ACLRule
		want  []string // "WHAT: rule, rule"
	}{
		{rules("0.0.0.0/0"), []string{"every IPv4 address: 0.0.0.0/0"}},
		{rules("1.2.3.4/0"), []string{"every IPv4 address: 1.2.3.4/0"}},
		{rules("0.0.0.0/00"), []string{"every IPv4 address: 0.0.0.0/00"}},
		{rules("::ffff:0:0/96"), []string{"every IPv4 address: ::ffff:0:0/96"}},
		{rules("::ffff:0.0.0.0/96"), []string{"every IPv4 address: ::ffff:0.0.0.0/96"}},
		{rules("::/64"), []string{"every IPv4 address: ::/64"}},
		{rules("0.0.0.0/1", "128.0.0.0/1"), []string{"every IPv4 address: 0.0.0.0/1, 128.0.0.0/1"}},
		{rules("10.0.0.0/8", "0.0.0.0/0", "scaleway_ranges"), []string{"every IPv4 address: 0.0.0.0/0"}},
		{rules("::/0"), []string{"every IPv4 address: ::/0", "every IPv6 address: ::/0"}},
		{rules("2000::/3"), []string{"every IPv6 address of the internet (2000::/3): 2000::/3"}},
		{rules("::/1"), []string{"every IPv4 address: ::/1", "every IPv6 address of the internet (2000::/3): ::/1"}}, // it holds ::ffff:0:0/96 too
		{rules("2000::/4", "3000::/4"), []string{"every IPv6 address of the internet (2000::/3): 2000::/4, 3000::/4"}},
		{rules("0.0.0.0/0", "::/0"), []string{"every IPv4 address: 0.0.0.0/0, ::/0", "every IPv6 address: ::/0"}},
		{rules("128.0.0.0/1"), nil},
		{rules("10.0.0.0/8", "scaleway_ranges", "2001:db8::/32"), nil},
		{rules("scaleway_ranges"), nil},
		{rules("not a range"), nil},
		{nil, nil},
	} {
		var got []string
		for _, o := range ACLOpen(tc.rules) {
			got = append(got, o.What+": "+ACLRulesText(o.Rules))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.rules, got, tc.want)
		}
	}
}

// ACLDiff compares as sets: order, spelling (case, zeros, host bits the API
// kept) and descriptions do not count; what differs is sorted.
func TestACLDiff(t *testing.T) {
	d := []ACLRule{{IP: "203.0.113.0/24"}, {ScalewayRanges: true}, {IP: "2001:db8::/32"}}
	same := []ACLRule{{IP: "2001:DB8:0::/32", Description: "v6"}, {IP: "203.0.113.9/24"}, {ScalewayRanges: true, Description: "ours"}}
	if a, r := ACLDiff(d, same); len(a)+len(r) != 0 {
		t.Errorf("same set: added %v removed %v", a, r)
	}
	a, r := ACLDiff(d, []ACLRule{{IP: "0.0.0.0/0"}, {IP: "203.0.113.0/24"}})
	if ACLRulesText(a) != "2001:db8::/32, scaleway_ranges" || ACLRulesText(r) != "0.0.0.0/0" {
		t.Errorf("added %v removed %v", a, r)
	}
	if !SameRange("10.0.0.5/8", "10.0.0.0/8") || SameRange("10.0.0.0/8", "10.0.0.0/9") || !SameRange("::ffff:10.0.0.0/104", "10.0.0.0/8") {
		t.Error("SameRange")
	}
}

const aclHead = "name: s\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: 6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90\n"
const aclTail = "pools: [{name: p, node_type: PRO2-XXS, size: 1}]\n"

func TestLoadACL(t *testing.T) {
	tp, err := Parse("s.yaml", []byte(aclHead+"  acl:\n    - 203.0.113.7\n    - {ip: 2001:DB8::/32}\n    - scaleway_ranges: true\n    - ::ffff:10.0.0.0/104\n"+aclTail))
	if err != nil {
		t.Fatal(err)
	}
	want := []ACLRule{{IP: "203.0.113.7/32"}, {IP: "2001:db8::/32"}, {ScalewayRanges: true}, {IP: "10.0.0.0/8"}}
	if !reflect.DeepEqual(tp.Scaleway.ACL, want) {
		t.Errorf("acl %+v, want %+v", tp.Scaleway.ACL, want)
	}
	if len(tp.Warnings) != 1 || !strings.HasPrefix(tp.Warnings[0], "s.yaml:10:7: scaleway.acl[3]: ::ffff:10.0.0.0/104 is an IPv4-mapped IPv6 range") {
		t.Errorf("warnings %q", tp.Warnings)
	}
	if p, ok := tp.PositionOf(KeyACL); !ok || p.Line != 6 {
		t.Errorf("position of scaleway.acl: %+v %v", p, ok)
	}
	if tp, err := Parse("s.yaml", []byte(aclHead+aclTail)); err != nil || tp.Scaleway.ACL != nil {
		t.Errorf("undeclared: %v %v", tp.Scaleway.ACL, err)
	}
	for _, tc := range []struct{ acl, want string }{
		{"  acl: []\n", "s.yaml:6:8: scaleway.acl: is empty: an ACL with no rule is not declared (list the ranges"},
		{"  acl:\n", "s.yaml:6:7: scaleway.acl: is empty"},
		{"  acl: 0.0.0.0/0\n", "s.yaml:6:8: scaleway.acl: must be a list, found"},
		{"  acl: [10.1.2.3/24]\n", "s.yaml:6:9: scaleway.acl[0]: \"10.1.2.3/24\" has host bits set after /24 (write 10.1.2.0/24 for the network, or 10.1.2.3/32 for the one host)"},
		{"  acl: [0/0]\n", "s.yaml:6:9: scaleway.acl[0]: \"0/0\" is not a range in CIDR notation"},
		{"  acl: [10.0.0.0/8, \"::ffff:10.0.0.0/104\"]\n", "s.yaml:6:21: scaleway.acl[1]: duplicate rule 10.0.0.0/8 (first declared at line 6) (remove one of them)"},
		{"  acl:\n    - scaleway_ranges: true\n    - {scaleway_ranges: true}\n", "s.yaml:8:7: scaleway.acl[1]: duplicate scaleway_ranges (the API holds one such rule)"},
		{"  acl: [{scaleway_ranges: false}]\n", "s.yaml:6:27: scaleway.acl[0].scaleway_ranges: must be true, found false (write scaleway_ranges: true, or remove the entry)"},
		{"  acl: [{scaleway_ranges: \"yes\"}]\n", "scaleway.acl[0].scaleway_ranges: must be true"},
		{"  acl: [{ip: 10.0.0.0/8, scaleway_ranges: true}]\n", "scaleway.acl[0]: an entry is either ip or scaleway_ranges, not both"},
		{"  acl: [{ipp: 10.0.0.0/8}]\n", "unknown key \"ipp\" in scaleway.acl[0] (did you mean ip?"},
		{"  acl: [scaleway_ranges]\n", "(write it as - scaleway_ranges: true)"},
		{"  acl: [[10.0.0.0/8]]\n", "scaleway.acl[0]: must be a range or a mapping"},
		{"  acl: [~]\n", "scaleway.acl[0]: empty rule"},
	} {
		_, err := Parse("s.yaml", []byte(aclHead+tc.acl+aclTail))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.acl, err, tc.want)
		}
	}
}
