package kapsule

import (
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

func aclRules(ss ...string) []topology.ACLRule {
	out := []topology.ACLRule{}
	for _, s := range ss {
		if s == "scaleway_ranges" {
			out = append(out, topology.ACLRule{ScalewayRanges: true})
		} else {
			out = append(out, topology.ACLRule{IP: s})
		}
	}
	return out
}

// The ACL rules of JudgeKapsule, each case a declared ACL (nil: none) and
// what the provider's API gave (known or not).
func TestJudgeACL(t *testing.T) {
	forbidden := topology.UnknownFact[[]topology.ACLRule](topology.Because(topology.ReasonForbidden, "forbidden: the credentials may not read it (403 permissions_denied)"))
	for _, tc := range []struct {
		name     string
		declared []topology.ACLRule
		read     topology.Fact[[]topology.ACLRule]
		status   string
		steps    string   // the steps, as steps() writes them
		findings []string // each finding's words, in order
		unknown  topology.ReasonCode
	}{
		{name: "read open, undeclared", read: topology.KnownFact(aclRules("0.0.0.0/0")),
			findings: []string{"warning scaleway.acl: rule 0.0.0.0/0 admits every IPv4 address: any host may reach the API server (the provider's default entry 0.0.0.0/0 \"enables any host to establish a connection\"); declare scaleway.acl"}},
		{name: "same set in another order", declared: aclRules("2001:db8::/32", "scaleway_ranges", "203.0.113.0/24"), read: topology.KnownFact(aclRules("scaleway_ranges", "2001:DB8::/32", "203.0.113.0/24"))},
		{name: "closed by the plan", declared: aclRules("203.0.113.0/24"), read: topology.KnownFact(aclRules("0.0.0.0/0", "203.0.113.0/24")),
			steps:    "set-acl cluster: remove 0.0.0.0/0 (compared as a set: the order of the rules does not matter)",
			findings: []string{"warning scaleway.acl: rule 0.0.0.0/0 admits every IPv4 address", "; set-acl cluster closes it"}},
		{name: "declared open, read closed", declared: aclRules("::/0"), read: topology.KnownFact(aclRules("203.0.113.0/24")),
			steps: "set-acl cluster: add ::/0; remove 203.0.113.0/24 (compared as a set: the order of the rules does not matter)",
			findings: []string{"warning scaleway.acl: the declared rule ::/0 admits every IPv4 address: any host could reach the API server", "; set-acl cluster would set it",
				"warning scaleway.acl: the declared rule ::/0 admits every IPv6 address"}},
		{name: "declared and read open alike", declared: aclRules("0.0.0.0/0"), read: topology.KnownFact(aclRules("0.0.0.0/0")),
			findings: []string{"warning scaleway.acl: rule 0.0.0.0/0 admits every IPv4 address", "; the declared scaleway.acl keeps it so"}},
		{name: "two halves", read: topology.KnownFact(aclRules("0.0.0.0/1", "128.0.0.0/1")),
			findings: []string{"warning scaleway.acl: rules 0.0.0.0/1 and 128.0.0.0/1 together admit every IPv4 address"}},
		{name: "unread, declared", declared: aclRules("203.0.113.0/24"), read: forbidden, unknown: topology.ReasonForbidden},
		{name: "unread, declared open: said from the declaration only", declared: aclRules("0.0.0.0/0"), read: forbidden, unknown: topology.ReasonForbidden,
			findings: []string{"warning scaleway.acl: the declared rule 0.0.0.0/0 admits every IPv4 address"}},
		{name: "unread, undeclared: nothing rests on it", read: forbidden},
		{name: "cluster updating: no step, the read still judged", status: "updating", declared: aclRules("203.0.113.0/24"), read: topology.KnownFact(aclRules("0.0.0.0/0")),
			findings: []string{"warning scaleway.acl: rule 0.0.0.0/0 admits every IPv4 address", "; the declared scaleway.acl closes it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := kapsuleTopo("1.35", nil)
			tp.Scaleway.ACL = tc.declared
			k := healthy()
			k.ACLRules = tc.read
			if tc.status != "" {
				c := k.Cluster.Value
				c.Status = tc.status
				k.Cluster = topology.KnownFact(c)
			}
			j := JudgeKapsule(tp, k)
			if got := steps(j); got != tc.steps {
				t.Errorf("steps\n%s\nwant\n%s", got, tc.steps)
			}
			var acl []topology.Finding
			for _, f := range j.Findings {
				if f.Kind == topology.FindingACLOpen {
					acl = append(acl, f)
					checkKeyed(t, f.Subject, topology.KeyACL)
				}
			}
			got := findings(acl)
			for _, w := range tc.findings {
				if !strings.Contains(got, w) {
					t.Errorf("findings\n%s\nwant to hold %q", got, w)
				}
			}
			if len(tc.findings) == 0 && got != "" {
				t.Errorf("findings %s, want none", got)
			}
			var codes []topology.ReasonCode
			for _, u := range j.Unknowns {
				if u.Subject.Key == topology.KeyACL {
					codes = append(codes, u.Code)
				}
			}
			switch {
			case tc.unknown == "" && len(codes) != 0:
				t.Errorf("unknowns %v, want none", j.Unknowns)
			case tc.unknown != "" && (len(codes) != 1 || codes[0] != tc.unknown):
				t.Errorf("unknowns %v, want one %s at scaleway.acl", j.Unknowns, tc.unknown)
			}
		})
	}
}

// A set-acl step's subject and the warning it carries are placed at
// scaleway.acl, and a declared open rule's warning sits under the step.
func TestJudgeACLStepSubject(t *testing.T) {
	tp := kapsuleTopo("1.35", nil)
	tp.Scaleway.ACL = aclRules("0.0.0.0/0")
	k := healthy()
	k.ACLRules = topology.KnownFact(aclRules("203.0.113.0/24"))
	j := JudgeKapsule(tp, k)
	if len(j.Steps) != 1 || j.Steps[0].Kind != topology.StepSetACL {
		t.Fatalf("steps %s", steps(j))
	}
	checkKeyed(t, j.Steps[0].Subject, topology.KeyACL)
	var under int
	for _, f := range j.Findings {
		if f.Step == topology.StepRef(j.Steps[0]) {
			under++
		}
	}
	if under != 1 {
		t.Errorf("%d findings under %s: %s", under, topology.StepRef(j.Steps[0]), findings(j.Findings))
	}
}

// checkKeyed checks a claim's subject (checkSubject) and that it is at key.
func checkKeyed(t *testing.T, s topology.Subject, key string) {
	t.Helper()
	checkSubject(t, s)
	if s.Key != key {
		t.Errorf("subject %+v: key %q, want %q", s, s.Key, key)
	}
}
