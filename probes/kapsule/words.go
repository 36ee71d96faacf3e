package kapsule

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// Runbook: the control plane and the pools are the provider's; nestor
// names the scw commands that move them.
func (Kind) Runbook(t *topology.Topology, ph topology.Phase, _ func(string) string) string {
	switch ph.Kind {
	case topology.PhaseKindCluster:
		return "RUNBOOK.md § Kapsule: the control plane is the provider's — wait while it is creating or updating; otherwise upgrade it one minor at a time to a version it is offered (`scw k8s cluster upgrade " + t.Scaleway.ClusterID + " version=X region=" + t.Scaleway.Region + "`), then `nestor preview`"
	case topology.PhaseKindPools:
		return "RUNBOOK.md § Kapsule: create, update, replace or upgrade the pools as PLAN says (`scw k8s pool create|update|upgrade`), or wait while the provider moves them, then `nestor preview`"
	}
	return ""
}

// Env exports nothing: the cluster is read through the provider's API, and
// the layers through the kubeconfig the rules resolve, when there is one.
func (Kind) Env(t *topology.Topology, kc probes.Kubeconfig, _ *probes.NoTarget, _ func(string) string) ([]probes.EnvVar, []string, error) {
	notes := []string{
		fmt.Sprintf("stack %s is %s: nestor env exports nothing for it (KUBECONFIG is left as it is).", t.Name, t.TargetKind),
		fmt.Sprintf("nestor reads the cluster %s (%s) through the provider's API.", t.Scaleway.ClusterID, t.Scaleway.Region),
	}
	if kc.None() {
		return nil, append(notes, fmt.Sprintf("no kubeconfig for the layers: `scw k8s kubeconfig install %s region=%s` writes one; declare it as kubeconfig: in %s.", t.Scaleway.ClusterID, t.Scaleway.Region, t.Path)), nil
	}
	return nil, append(notes, fmt.Sprintf("the layers inside the cluster through %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc))), nil
}

// Fetch: a managed control plane has no ssh access; the provider's
// kubeconfig route answers a credential, which nestor never calls.
func (Kind) Fetch(t *topology.Topology, _ string) error {
	return fmt.Errorf("stack %s is kapsule: --cp copies a kubeconfig from a control-plane node over ssh, and a managed control plane has no ssh access; "+
		"`scw k8s kubeconfig get %s region=%s` fetches one from the provider (nestor never calls that route: it answers a credential), then declare it as kubeconfig:",
		t.Name, t.Scaleway.ClusterID, t.Scaleway.Region)
}

// Selected names the cluster and how preview confirms it.
func (Kind) Selected(t *topology.Topology, _ string, suggest func(string) string) string {
	return fmt.Sprintf("Cluster: %s in %s, read through the provider's API (`%s` confirms it)", t.Scaleway.ClusterID, t.Scaleway.Region, suggest("preview"))
}
