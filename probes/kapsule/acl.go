package kapsule

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// aclSource is where the cluster's ACL is read from.
const aclSource = "the provider's ACL rules (GET /k8s/v1/regions/{region}/clusters/{id}/acls)"

// aclDefaultWords quote the provider on its default entry (Scaleway,
// "Managing allowed IP addresses for Kubernetes products").
const aclDefaultWords = `the provider's default entry 0.0.0.0/0 "enables any host to establish a connection"`

// aclSubject is what the ACL's claims are about: scaleway.acl.
func aclSubject() topology.Subject {
	return topology.SettingSubject(topology.KeyACL, "scaleway.acl")
}

// judgeACL applies the ACL rules of JudgeKapsule: the read rules are
// compared with scaleway.acl as sets (topology.ACLDiff: the API lists its
// rules sorted by ip), a difference a set-acl step naming what it adds
// and removes, planned only when the cluster can take a step (canPlan);
// rules that admit every address (topology.ACLOpen) are a warning, read
// or declared. An ACL the API did not give is unknown with its reason when
// it is declared (waiting when the API answered transient_state): no
// set-acl step and no judgement of the read rules rest on it; a declared
// rule that admits every address is still said.
func (j *KapsuleJudgement) judgeACL(t *topology.Topology, k *topology.KapsuleObserved, canPlan bool) {
	var declared []topology.ACLRule
	if t.Scaleway != nil {
		declared = t.Scaleway.ACL
	}
	read := k.ACLRules
	var step *topology.Step
	said := map[string]bool{}
	switch {
	case k.Transient["acl"] != "":
		if declared != nil {
			j.wait(aclSubject(), "the provider's API answered transient_state (current state "+k.Transient["acl"]+")")
		}
	case !read.Known:
		if declared != nil {
			j.unknown(aclSubject(), read.Code, read.Reason)
		}
	default:
		if declared != nil && canPlan {
			if added, removed := topology.ACLDiff(declared, read.Value); len(added)+len(removed) > 0 {
				j.add(topology.StepSetACL, topology.PhaseCluster, "cluster", aclDiffText(added, removed))
				step = &j.Steps[len(j.Steps)-1]
			}
		}
		declaredOpen := map[string]bool{}
		for _, o := range topology.ACLOpen(declared) {
			declaredOpen[o.What] = true
		}
		for _, o := range topology.ACLOpen(read.Value) {
			said[o.What] = true
			msg := fmt.Sprintf("%s %s: any host may reach the API server (%s)", ruleWords(o.Rules), o.What, aclDefaultWords)
			switch {
			case declared == nil:
				msg += "; declare scaleway.acl with the ranges that need it"
			case declaredOpen[o.What]:
				msg += "; the declared scaleway.acl keeps it so"
			case step != nil:
				msg += "; " + topology.StepRef(*step) + " closes it"
			default:
				msg += "; the declared scaleway.acl closes it"
			}
			f := topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingACLOpen, Subject: aclSubject(), Message: msg, Source: aclSource}
			if step != nil {
				f.Step = topology.StepRef(*step)
			}
			j.Findings = append(j.Findings, f)
		}
	}
	for _, o := range topology.ACLOpen(declared) {
		if said[o.What] {
			continue
		}
		msg := fmt.Sprintf("the declared %s %s: any host could reach the API server (%s)", ruleWords(o.Rules), o.What, aclDefaultWords)
		f := topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingACLOpen, Subject: aclSubject(), Source: "scaleway.acl"}
		if step != nil {
			msg += "; " + topology.StepRef(*step) + " would set it"
			f.Step = topology.StepRef(*step)
		}
		f.Message = msg
		j.Findings = append(j.Findings, f)
	}
}

// ruleWords names the rules that admit an address space, with the verb:
// "rule 0.0.0.0/0 admits", "rules 0.0.0.0/1 and 128.0.0.0/1 together
// admit".
func ruleWords(rules []topology.ACLRule) string {
	if len(rules) == 1 {
		return "rule " + rules[0].String() + " admits"
	}
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.String()
	}
	return "rules " + kube.JoinAnd(names) + " together admit"
}

// aclDiffText is a set-acl step's reason: what it adds and removes.
func aclDiffText(added, removed []topology.ACLRule) string {
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "add "+topology.ACLRulesText(added))
	}
	if len(removed) > 0 {
		parts = append(parts, "remove "+topology.ACLRulesText(removed))
	}
	return strings.Join(parts, "; ") + " (compared as a set: the order of the rules does not matter)"
}
