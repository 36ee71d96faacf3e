package kapsule

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/topology"
)

// renameSource is the provider's page on what a rename does.
const renameSource = `Scaleway, "Cluster renaming causes workload disruption" (Kubernetes troubleshooting)`

// renameWords say what renaming a Kapsule cluster does (renameSource).
const renameWords = "renaming a cluster is not a cosmetic change: the provider redeploys the control plane and the job that injects its managed resources into the cluster, " +
	"and restarts every CSI driver pod; until they are back, pods may stay in ContainerCreating, DNS and volume mounts may fail, and jobs may not start — " +
	"it recovers within 1 to 2 hours; rename in a maintenance window"

// notInPlaceWords end the finding of a cluster value the provider cannot
// change.
const notInPlaceWords = "the provider cannot change it in place (its API has no such update): the cluster must be recreated with it, or the topology declare what runs"

// judgeClusterImmutables applies the rules of a managed cluster's own
// values (kapsule_immutable.go in topology says which and why): a declared
// region, project, CNI, Private Network, pod or service range that differs
// from the cluster's is an error finding and never a step (the guard
// refuses a region or project that differs before anything is read; the
// rule stays whole); a value the API did not give is unknown; a declared
// cluster_name that differs is a rename-cluster step, in place, with its
// warning (renameWords), when the cluster can take a step (canPlan).
func (j *KapsuleJudgement) judgeClusterImmutables(t *topology.Topology, c topology.KapsuleCluster, canPlan bool) {
	s := t.Scaleway
	if s == nil {
		return
	}
	differs := func(name, actual, declared string) {
		j.finding(topology.SeverityError, topology.FindingNotInPlace, topology.SettingSubject(topology.ScalewayKey(name), "scaleway."+name),
			"%s %s → %s: %s", name, orText(actual, "none"), declared, notInPlaceWords)
	}
	unknown := func(name, why string) {
		j.unknown(topology.SettingSubject(topology.ScalewayKey(name), "scaleway."+name), topology.ReasonNotRead, why)
	}
	if c.Region != "" && s.Region != "" && c.Region != s.Region {
		differs("region", c.Region, s.Region)
	}
	if s.ProjectID != "" && c.ProjectID != "" && !strings.EqualFold(c.ProjectID, s.ProjectID) {
		differs("project_id", c.ProjectID, s.ProjectID)
	}
	if s.CNI != "" {
		switch {
		case c.CNI == "" || c.CNI == "unknown_cni":
			unknown("cni", fmt.Sprintf("the provider's API gives the cluster's CNI as %q, which does not say which it runs", orText(c.CNI, "nothing")))
		case c.CNI != s.CNI:
			differs("cni", c.CNI, s.CNI)
		}
	}
	if s.PrivateNetworkID != "" && !strings.EqualFold(c.PrivateNetworkID, s.PrivateNetworkID) {
		differs("private_network_id", c.PrivateNetworkID, s.PrivateNetworkID)
	}
	for _, r := range []struct{ name, actual, declared string }{{"pod_cidr", c.PodCIDR, s.PodCIDR}, {"service_cidr", c.ServiceCIDR, s.ServiceCIDR}} {
		switch {
		case r.declared == "":
		case r.actual == "":
			unknown(r.name, "the provider's API gave no "+r.name+" for the cluster")
		case !topology.SameRange(r.actual, r.declared):
			differs(r.name, r.actual, r.declared)
		}
	}
	if s.ClusterName != "" && c.Name != s.ClusterName && canPlan {
		j.add(topology.StepRenameCluster, topology.PhaseCluster, s.ClusterName, fmt.Sprintf("name %s → %s, in place", c.Name, s.ClusterName))
		step := j.Steps[len(j.Steps)-1]
		j.Findings = append(j.Findings, topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingRename, Subject: step.Subject,
			Message: renameWords, Source: renameSource, Step: topology.StepRef(step)})
	}
}

// poolImmutables compares what a pool declares and the provider cannot
// change in place with the pool (besides node_type and zone, which
// judgePoolFields compares): its placement group, root volume type and
// size, and public IP setting. It returns each difference ("placement
// group none → ID"), for a replace-pool step, and each declared value the
// API did not give, for an unknown.
func poolImmutables(want topology.Pool, p topology.KapsulePool) (replace, unknown []string) {
	if want.PlacementGroupID != "" && !strings.EqualFold(want.PlacementGroupID, p.PlacementGroupID) {
		replace = append(replace, fmt.Sprintf("placement group %s → %s", orText(p.PlacementGroupID, "none"), want.PlacementGroupID))
	}
	if want.RootVolumeType != "" {
		switch {
		case p.RootVolumeType == "" || p.RootVolumeType == "default_volume_type":
			unknown = append(unknown, fmt.Sprintf("root_volume_type: the provider's API gives %q, which does not say which type the nodes have", orText(p.RootVolumeType, "nothing")))
		case p.RootVolumeType != want.RootVolumeType:
			replace = append(replace, fmt.Sprintf("root_volume_type %s → %s", p.RootVolumeType, want.RootVolumeType))
		}
	}
	if want.RootVolumeSize != "" {
		b, err := topology.VolumeSizeBytes(want.RootVolumeSize)
		switch {
		case err != nil: // refused at load
		case p.RootVolumeSize == 0:
			unknown = append(unknown, "root_volume_size: the provider's API gave no root volume size for the pool")
		case p.RootVolumeSize != b:
			replace = append(replace, fmt.Sprintf("root_volume_size %s → %s", topology.VolumeSizeText(p.RootVolumeSize), topology.VolumeSizeText(b)))
		}
	}
	if want.PublicIPDisabled != nil && *want.PublicIPDisabled != p.PublicIPDisabled {
		replace = append(replace, fmt.Sprintf("public_ip_disabled %t → %t", p.PublicIPDisabled, *want.PublicIPDisabled))
	}
	return replace, unknown
}
