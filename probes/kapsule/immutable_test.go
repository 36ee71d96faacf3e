package kapsule

import (
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

// Each pool value the provider cannot change in place, declared and
// different, is a replace-pool step naming it, never update-pool; a value
// the API did not give is unknown; equal values (spelled differently) are
// nothing.
func TestPoolImmutablesReplace(t *testing.T) {
	const pg = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	on, off := true, false
	for _, tc := range []struct {
		name    string
		want    func(*topology.Pool)
		have    func(*topology.KapsulePool)
		step    string
		unknown string
	}{
		{name: "node type", want: func(p *topology.Pool) { p.NodeType = "PRO2-M" }, step: "replace-pool default: node_type pro2_xxs → PRO2-M"},
		{name: "zone", want: func(p *topology.Pool) { p.Zone = "fr-par-2" }, step: "replace-pool default: zone fr-par-1 → fr-par-2"},
		{name: "placement group added", want: func(p *topology.Pool) { p.PlacementGroupID = pg }, step: "replace-pool default: placement group none → " + pg},
		{name: "placement group same, other case", want: func(p *topology.Pool) { p.PlacementGroupID = pg }, have: func(p *topology.KapsulePool) { p.PlacementGroupID = strings.ToUpper(pg) }},
		{name: "root volume type", want: func(p *topology.Pool) { p.RootVolumeType = "sbs_15k" }, step: "replace-pool default: root_volume_type sbs_5k → sbs_15k"},
		{name: "root volume type not said", want: func(p *topology.Pool) { p.RootVolumeType = "l_ssd" }, have: func(p *topology.KapsulePool) { p.RootVolumeType = "default_volume_type" },
			unknown: "root_volume_type: the provider's API gives \"default_volume_type\""},
		{name: "root volume size", want: func(p *topology.Pool) { p.RootVolumeSize = "50GB" }, step: "replace-pool default: root_volume_size 20 GB → 50 GB"},
		{name: "root volume size same in GB", want: func(p *topology.Pool) { p.RootVolumeSize = "20 GB" }},
		{name: "root volume size not given", want: func(p *topology.Pool) { p.RootVolumeSize = "20GB" }, have: func(p *topology.KapsulePool) { p.RootVolumeSize = 0 },
			unknown: "root_volume_size: the provider's API gave no root volume size"},
		{name: "public IP", want: func(p *topology.Pool) { p.PublicIPDisabled = &on }, step: "replace-pool default: public_ip_disabled false → true"},
		{name: "public IP same", want: func(p *topology.Pool) { p.PublicIPDisabled = &off }},
		{name: "two at once, and size in place", want: func(p *topology.Pool) { p.RootVolumeType = "sbs_15k"; p.PublicIPDisabled = &on; p.Size = 4 },
			step: "replace-pool default: root_volume_type sbs_5k → sbs_15k, public_ip_disabled false → true (cannot change in place: a new pool, then the old one removed)\nupdate-pool default: size 3 → 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := kapsuleTopo("1.35", nil)
			tc.want(&tp.Pools[0])
			k := healthy()
			pools := k.Pools.Value
			pools[0].RootVolumeType, pools[0].RootVolumeSize = "sbs_5k", 20e9
			if tc.have != nil {
				tc.have(&pools[0])
			}
			j := JudgeKapsule(tp, k)
			got := steps(j)
			if tc.step == "" && got != "" || !strings.HasPrefix(got, tc.step) {
				t.Errorf("steps\n%s\nwant\n%s", got, tc.step)
			}
			if strings.Contains(got, "update-pool") && !strings.Contains(tc.step, "update-pool") {
				t.Errorf("an in-place step for a value fixed at creation: %s", got)
			}
			var unknown []string
			for _, u := range j.Unknowns {
				unknown = append(unknown, u.String())
				checkKeyed(t, u.Subject, topology.PoolKey("default"))
			}
			if tc.unknown == "" && len(unknown) != 0 || tc.unknown != "" && (len(unknown) != 1 || !strings.Contains(unknown[0], tc.unknown)) {
				t.Errorf("unknowns %q, want %q", unknown, tc.unknown)
			}
		})
	}
}

// The cluster's own values the provider cannot change in place are error
// findings and never a step; a rename is a step with its warning under it.
func TestClusterImmutables(t *testing.T) {
	const pn = "5f0c2e61-8f3d-4b7a-9d2c-7e1a4b3c2d10"
	for _, tc := range []struct {
		name    string
		declare func(*topology.Scaleway)
		have    func(*topology.KapsuleCluster)
		finding string // the error finding's words; "" none
		key     string
		unknown string
	}{
		{name: "cni", declare: func(s *topology.Scaleway) { s.CNI = "calico" }, finding: "error scaleway.cni: cni cilium → calico: the provider cannot change it in place", key: "scaleway.cni"},
		{name: "cni same", declare: func(s *topology.Scaleway) { s.CNI = "cilium" }},
		{name: "cni unknown", declare: func(s *topology.Scaleway) { s.CNI = "cilium" }, have: func(c *topology.KapsuleCluster) { c.CNI = "unknown_cni" }, unknown: "scaleway.cni: the provider's API gives the cluster's CNI as \"unknown_cni\""},
		{name: "private network added", declare: func(s *topology.Scaleway) { s.PrivateNetworkID = pn }, have: func(c *topology.KapsuleCluster) { c.PrivateNetworkID = "" },
			finding: "error scaleway.private_network_id: private_network_id none → " + pn, key: "scaleway.private_network_id"},
		{name: "private network same", declare: func(s *topology.Scaleway) { s.PrivateNetworkID = pn }},
		{name: "pod range", declare: func(s *topology.Scaleway) { s.PodCIDR = "100.64.0.0/16" }, finding: "error scaleway.pod_cidr: pod_cidr 100.64.0.0/15 → 100.64.0.0/16", key: "scaleway.pod_cidr"},
		{name: "service range same, other spelling", declare: func(s *topology.Scaleway) { s.ServiceCIDR = "10.32.0.0/20" }, have: func(c *topology.KapsuleCluster) { c.ServiceCIDR = "10.32.0.10/20" }},
		{name: "service range not given", declare: func(s *topology.Scaleway) { s.ServiceCIDR = "10.32.0.0/20" }, have: func(c *topology.KapsuleCluster) { c.ServiceCIDR = "" }, unknown: "scaleway.service_cidr: the provider's API gave no service_cidr"},
		{name: "project", declare: func(s *topology.Scaleway) { s.ProjectID = "0b6f1d2e-3c4b-4a59-8e7f-000000000000" }, finding: "error scaleway.project_id: project_id", key: "scaleway.project_id"},
		{name: "region", declare: func(s *topology.Scaleway) { s.Region = "nl-ams" }, finding: "error scaleway.region: region fr-par → nl-ams", key: "scaleway.region"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := kapsuleTopo("1.35", nil)
			tc.declare(tp.Scaleway)
			k := healthy()
			c := k.Cluster.Value
			c.Region, c.ProjectID, c.PrivateNetworkID, c.PodCIDR, c.ServiceCIDR = "fr-par", "0b6f1d2e-3c4b-4a59-8e7f-901234567890", pn, "100.64.0.0/15", "10.32.0.0/20"
			if tc.have != nil {
				tc.have(&c)
			}
			k.Cluster = topology.KnownFact(c)
			j := JudgeKapsule(tp, k)
			if s := steps(j); s != "" {
				t.Errorf("steps %s, want none", s)
			}
			var errs []topology.Finding
			for _, f := range j.Findings {
				if f.Kind == topology.FindingNotInPlace {
					errs = append(errs, f)
					checkKeyed(t, f.Subject, tc.key)
					if f.Severity != topology.SeverityError || !strings.Contains(f.Message, "the cluster must be recreated") {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if got := findings(errs); tc.finding == "" && got != "" || !strings.HasPrefix(got, tc.finding) {
				t.Errorf("findings %s, want %s", got, tc.finding)
			}
			var unknown []string
			for _, u := range j.Unknowns {
				unknown = append(unknown, u.String())
			}
			if tc.unknown == "" && len(unknown) != 0 || tc.unknown != "" && (len(unknown) != 1 || !strings.HasPrefix(unknown[0], tc.unknown)) {
				t.Errorf("unknowns %q, want %q", unknown, tc.unknown)
			}
		})
	}
}

func TestRenameIsAStepWithItsWarning(t *testing.T) {
	tp := kapsuleTopo("1.35", nil)
	tp.Scaleway.ClusterName = "lyneko-prod"
	j := JudgeKapsule(tp, healthy())
	if got := steps(j); got != "rename-cluster lyneko-prod: name lyneko-apps → lyneko-prod, in place" {
		t.Fatalf("steps %s", got)
	}
	checkKeyed(t, j.Steps[0].Subject, "scaleway.cluster_name")
	var rename []topology.Finding
	for _, f := range j.Findings {
		if f.Kind == topology.FindingRename {
			rename = append(rename, f)
		}
	}
	if len(rename) != 1 || rename[0].Severity != topology.SeverityWarning || rename[0].Step != "rename-cluster lyneko-prod" ||
		!strings.Contains(rename[0].Message, "not a cosmetic change") || !strings.Contains(rename[0].Message, "1 to 2 hours") ||
		!strings.Contains(rename[0].Source, "Cluster renaming causes workload disruption") {
		t.Errorf("rename findings %+v", rename)
	}
	tp.Scaleway.ClusterName = "lyneko-apps"
	if j := JudgeKapsule(tp, healthy()); len(j.Steps) != 0 {
		t.Errorf("same name: %s", steps(j))
	}
	// A cluster that cannot take a step (updating) plans no rename.
	tp.Scaleway.ClusterName = "lyneko-prod"
	k := healthy()
	c := k.Cluster.Value
	c.Status = "updating"
	k.Cluster = topology.KnownFact(c)
	if j := JudgeKapsule(tp, k); len(j.Steps) != 0 {
		t.Errorf("updating: %s", steps(j))
	}
}
