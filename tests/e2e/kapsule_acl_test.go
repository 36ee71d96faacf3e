package e2e

// End-to-end proofs of who may reach a Kapsule cluster's API server (its
// ACL) and of what the provider cannot change in place, on the real API
// server and the provider's stand-in.

import (
	"encoding/json"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/scwstub"
)

// kapsuleClaims is what these tests read of preview's JSON document.
type kapsuleClaims struct {
	Actual struct {
		Kapsule struct {
			ACL      fact[[]string] `json:"acl"`
			ACLRules struct {
				fact[[]aclRuleDoc]
				ReasonCode string `json:"reason_code"`
			} `json:"acl_rules"`
		} `json:"kapsule"`
	} `json:"actual"`
	Plan struct {
		Findings []struct {
			Severity, Kind, Message, Step string
			Subject                       jsonSubject
		} `json:"findings"`
	} `json:"plan"`
}

// aclRuleDoc is an entry of actual.kapsule.acl_rules.
type aclRuleDoc struct {
	IP             string `json:"ip"`
	ScalewayRanges bool   `json:"scaleway_ranges"`
	Description    string `json:"description"`
}

func (kw *kapsuleWorld) previewJSON(t *testing.T, extra ...string) (result, previewDoc, kapsuleClaims) {
	t.Helper()
	r := kw.run(creds(), append([]string{"preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "-o", "json"}, extra...)...)
	doc := decodePreview(t, r)
	var k kapsuleClaims
	if err := json.Unmarshal([]byte(r.stdout), &k); err != nil {
		t.Fatal(err)
	}
	return r, doc, k
}

func (k kapsuleClaims) findingsOf(kind string) []string {
	var out []string
	for _, f := range k.Plan.Findings {
		if f.Kind == kind {
			out = append(out, f.Severity+" "+f.Subject.Key+": "+f.Message)
		}
	}
	return out
}

// The provider's default ACL entry 0.0.0.0/0, undeclared: ACTUAL says who
// may reach the API server, a warning says any host may, and the plan is
// still in sync (a finding changes no exit code without --fail-on).
func TestKapsuleACLOpen(t *testing.T) {
	kw := newKapsuleWorld(t)
	kw.stack("1.35", "~/.kube/lyneko-apps.config", "")
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
	wantCode(t, r, 0)
	wantLine(t, "actual", r.stdout, `^  acl +0\.0\.0\.0/0  admits every IPv4 address$`)
	wantLine(t, "findings", r.stdout, quote(`warning  scaleway.acl: rule 0.0.0.0/0 admits every IPv4 address: any host may reach the API server (the provider's default entry 0.0.0.0/0 "enables any host to establish a connection"); declare scaleway.acl with the ranges that need it`))
	wantContains(t, "preview", r.stdout, "In sync.")
	f := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--fail-on", "warning")
	wantCode(t, f, 3)

	// Every other spelling the API may give of the same: ranges that add up
	// to it, an IPv4-mapped IPv6 range, ::/0.
	for _, acl := range [][]string{{"0.0.0.0/1", "128.0.0.0/1"}, {"::ffff:0:0/96"}, {"::/0", "scaleway_ranges"}} {
		kw.data.ACL = acl
		kw.stub.Serve(kw.data)
		_, _, k := kw.previewJSON(t)
		got := k.findingsOf("acl-open")
		if len(got) == 0 || !strings.Contains(got[0], "warning scaleway.acl: rule") || !strings.Contains(got[0], "every IPv4 address") {
			t.Errorf("ACL %v: acl-open findings %q", acl, got)
		}
	}
	kw.data.ACL = []string{"203.0.113.0/24", "scaleway_ranges"}
	kw.stub.Serve(kw.data)
	_, _, k := kw.previewJSON(t)
	if got := k.findingsOf("acl-open"); len(got) != 0 {
		t.Errorf("a closed ACL: acl-open findings %q", got)
	}
	kw.wantOnlyReads(t)
}

// scaleway.acl is compared as a set: the API lists its rules sorted by ip,
// the topology in another order and spelling, and that is in sync; a
// difference is one set-acl step naming what it adds and removes.
func TestKapsuleSetACLOrderInsensitive(t *testing.T) {
	kw := newKapsuleWorld(t)
	kw.data.ACL = []string{"scaleway_ranges", "203.0.113.0/24 office", "2001:db8::/32"}
	kw.stub.Serve(kw.data)
	declare := func(acl string) {
		src := readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", ""))
		kw.stackFile("lyneko-apps", strings.Replace(src, "  api_url: ", "  acl:\n"+acl+"  api_url: ", 1))
	}
	declare("    - 2001:DB8:0::/32\n    - scaleway_ranges: true\n    - {ip: 203.0.113.0/24}\n")
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
	wantCode(t, r, 0)
	wantLine(t, "actual", r.stdout, `^  acl +scaleway_ranges, 2001:db8::/32, 203\.0\.113\.0/24 \(office\)$`)
	wantContains(t, "preview", r.stdout, "In sync.")

	declare("    - 198.51.100.7\n    - 203.0.113.0/24\n")
	r = kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
	wantCode(t, r, 2)
	wantLine(t, "plan", r.stdout, quote("~ set-acl cluster  (add 198.51.100.7/32; remove 2001:db8::/32, scaleway_ranges (compared as a set: the order of the rules does not matter))"))
	_, doc, _ := kw.previewJSON(t)
	if s := doc.changeSteps(); len(s) != 1 || s[0].Kind != "set-acl" {
		t.Errorf("steps %+v", doc.Plan.Steps)
	}
	kw.wantOnlyReads(t)
}

// An ACL the provider refuses to show (403) is unknown with its reason
// code: no set-acl step and no judgement of its rules rest on it.
func TestKapsuleACLUnread(t *testing.T) {
	kw := newKapsuleWorld(t)
	src := strings.Replace(readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", "")), "  api_url: ", "  acl: [203.0.113.0/24]\n  api_url: ", 1)
	kw.stackFile("lyneko-apps", src)
	kw.stub.Script("acls", scwstub.PermissionsDenied())
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
	wantLine(t, "actual", r.stdout, `^  acl +unknown \(forbidden: the credentials may not read it \(403 permissions_denied\)\)`)
	wantNotContains(t, "plan", r.stdout, "set-acl", "admits every")
	_, doc, k := kw.previewJSON(t)
	if k.Actual.Kapsule.ACLRules.Known || k.Actual.Kapsule.ACLRules.ReasonCode != "forbidden" || k.Actual.Kapsule.ACL.Known {
		t.Errorf("acl_rules %+v acl %+v", k.Actual.Kapsule.ACLRules, k.Actual.Kapsule.ACL)
	}
	var acl []jsonClaim
	for _, u := range doc.Plan.Unknowns {
		if u.Subject.Key == "scaleway.acl" {
			acl = append(acl, u)
		}
	}
	if len(acl) != 1 || acl[0].Reason != "forbidden" || len(doc.changeSteps()) != 0 || len(k.findingsOf("acl-open")) != 0 {
		t.Errorf("unknowns %+v steps %+v findings %+v", doc.Plan.Unknowns, doc.Plan.Steps, k.Plan.Findings)
	}
	if doc.Summary.InSync {
		t.Errorf("an unread declared ACL cannot be in sync: %+v", doc.Summary)
	}
}

// Each pool value the provider cannot change in place, declared and
// different, is a replace-pool step, never an in-place one.
func TestKapsulePoolReplacedForEachImmutable(t *testing.T) {
	kw := newKapsuleWorld(t)
	for _, tc := range []struct{ pool, step string }{
		{"node_type: PRO2-M, size: 3, zone: fr-par-1", "node_type pro2_xxs → PRO2-M"},
		{"node_type: PRO2-XXS, size: 3, zone: fr-par-2", "zone fr-par-1 → fr-par-2"},
		{"node_type: PRO2-XXS, size: 3, placement_group_id: 1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "placement group none → 1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f"},
		{"node_type: PRO2-XXS, size: 3, root_volume_type: sbs_15k", "root_volume_type sbs_5k → sbs_15k"},
		{"node_type: PRO2-XXS, size: 3, root_volume_size: 50GB", "root_volume_size 20 GB → 50 GB"},
		{"node_type: PRO2-XXS, size: 3, public_ip_disabled: true", "public_ip_disabled false → true"},
	} {
		text := strings.Replace(readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", "")), "{name: default, node_type: PRO2-XXS, size: 3, zone: fr-par-1}", "{name: default, "+tc.pool+"}", 1)
		kw.stackFile("lyneko-apps", text)
		r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
		wantCode(t, r, 2)
		wantLine(t, "plan", r.stdout, quote("± replace-pool default  ("+tc.step+" (cannot change in place: a new pool, then the old one removed))"))
		wantNotContains(t, "plan", r.stdout, "update-pool default")
	}
}

// A declared CNI or pod range the cluster was not created with is an error
// finding saying the cluster must be recreated, and no step.
func TestKapsuleClusterImmutableMismatch(t *testing.T) {
	kw := newKapsuleWorld(t)
	src := readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", ""))
	src = strings.Replace(src, "  api_url: ", "  cni: calico\n  pod_cidr: 100.64.0.0/16\n  private_network_id: "+scwstub.PrivateNetwork+"\n  api_url: ", 1)
	kw.stackFile("lyneko-apps", src)
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--fail-on", "error")
	wantCode(t, r, 3)
	wantLine(t, "findings", r.stdout, quote("error    scaleway.cni: cni cilium → calico: the provider cannot change it in place (its API has no such update): the cluster must be recreated with it, or the topology declare what runs"))
	wantLine(t, "findings", r.stdout, quote("error    scaleway.pod_cidr: pod_cidr 100.64.0.0/15 → 100.64.0.0/16: the provider cannot change it in place"))
	wantNotContains(t, "findings", r.stdout, "scaleway.private_network_id")
	_, doc, k := kw.previewJSON(t)
	if len(doc.changeSteps()) != 0 || len(k.findingsOf("not-in-place")) != 2 {
		t.Errorf("steps %+v findings %q", doc.Plan.Steps, k.findingsOf("not-in-place"))
	}
}

// A declared cluster name that differs is a rename-cluster step, with the
// provider's warning under it.
func TestKapsuleRenameStep(t *testing.T) {
	kw := newKapsuleWorld(t)
	src := readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", ""))
	kw.stackFile("lyneko-apps", strings.Replace(src, "  api_url: ", "  cluster_name: lyneko-prod\n  api_url: ", 1))
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--detailed-exitcode")
	wantCode(t, r, 2)
	wantLine(t, "plan", r.stdout, quote("~ rename-cluster lyneko-prod  (name lyneko-apps → lyneko-prod, in place)"))
	wantLine(t, "plan", r.stdout, `↳ warning +scaleway\.cluster_name: renaming a cluster is not a cosmetic change: .*1 to 2 hours`)
	_, _, k := kw.previewJSON(t)
	n := 0
	for _, f := range k.Plan.Findings {
		if f.Kind == "rename" {
			n++
			if f.Severity != "warning" || f.Step != "rename-cluster lyneko-prod" || f.Subject.Key != "scaleway.cluster_name" {
				t.Errorf("rename finding %+v", f)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d rename findings: %+v", n, k.Plan.Findings)
	}
}

// Load warnings, with their sources, on stderr before the report: a node
// type the provider excludes, a placement group over 20 instances.
func TestKapsuleLoadWarnings(t *testing.T) {
	kw := newKapsuleWorld(t)
	src := readFile(t, kw.stack("1.35", "~/.kube/lyneko-apps.config", ""))
	src = strings.Replace(src, "{name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 5}}",
		"{name: burst, node_type: dev1_s, autoscaling: {min: 0, max: 25}, placement_group_id: 1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f}", 1)
	path := kw.stackFile("lyneko-apps", src)
	r := kw.run(creds(), "preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input")
	wantContains(t, "stderr", r.stderr,
		"Warning: "+path+":14:30: pools[1].node_type: dev1_s cannot run a Kapsule pool: the provider's SDK and Terraform docs list DEV1-S, PLAY2-PICO and STARDUST as not eligible for too little memory; its CLI guide",
		"less than 4 GB of memory are not eligible — the two sources disagree",
		"pools[1].placement_group_id: placement group 1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f would hold up to 25 instances (pool burst: autoscaling max 25): a placement group holds 20 at most")
}
