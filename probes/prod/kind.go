// Package prod is target_kind prod: an existing cluster on machines
// provisioned upstream, read through the kubeconfig the rules resolve
// (--kubeconfig, KUBECONFIG, the topology's kubeconfig:) and guarded by its
// endpoint: confirmed interactively, or checked against the topology's
// endpoint: before anything is sent.
package prod

import (
	"context"
	"fmt"
	"strings"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// Kind is target_kind prod.
type Kind struct{ Rules }

// Name is prod.
func (Kind) Name() topology.TargetKind { return topology.TargetProd }

// Resolve applies the kubeconfig rules (probes.ResolveKubeconfig).
func (Kind) Resolve(o probes.ResolveOptions) (probes.Kubeconfig, error) {
	return probes.ResolveKubeconfig(o)
}

// NoTarget: no rule gave a kubeconfig, or the topology's kubeconfig: names
// a file that does not exist yet (discover --cp fetches it).
func (Kind) NoTarget(t *topology.Topology, kc probes.Kubeconfig) *probes.NoTarget {
	if kc.None() {
		return &probes.NoTarget{Kind: probes.NoKubeconfig, Stack: t.Name, File: t.Path}
	}
	if kc.Source == probes.SourceTopology && len(kc.Paths) == 1 {
		if ok, err := probes.FileExists(kc.Paths[0]); err == nil && !ok {
			return &probes.NoTarget{Kind: probes.KubeconfigMissing, Stack: t.Name, File: t.Path, Path: kc.Paths[0]}
		}
	}
	return nil
}

// Guarded: the kubeconfig's server is the cluster's identity.
func (Kind) Guarded() bool { return true }

// Guard is the endpoint guard (probes.GuardEndpoint).
func (Kind) Guard(ctx context.Context, op *probes.Opened) (*probes.GuardView, error) {
	return probes.GuardEndpoint(ctx, op)
}

// Read reads the cluster (the interactive guard's version and nodes kept),
// or every part unknown with the reason when there is no target.
func (Kind) Read(ctx context.Context, op *probes.Opened, _ probes.Scope) (*topology.Observed, topology.ClusterFacts) {
	if op.Target == nil {
		return probes.NoTargetObservation(op.NoTarget.Error()), topology.ClusterFacts{}
	}
	if op.Guard != nil {
		return probes.ProbeCluster(ctx, op.Target, op.Topology, op.Guard.Version, op.Guard.Nodes)
	}
	return probes.ProbeTarget(ctx, op.Target, op.Topology)
}

// Runbook: the upstream provisioning bootstraps the existing machines;
// kubeadm joins, repairs and upgrades them.
func (Kind) Runbook(t *topology.Topology, ph topology.Phase, _ func(string) string) string {
	switch ph.Kind {
	case topology.PhaseKindBootstrap:
		return "RUNBOOK.md § bootstrap: the upstream provisioning (Ansible bootstrap playbook) on the existing machines, then " + probes.FetchCommand(t, func(s string) string { return "nestor " + s })
	case topology.PhaseKindK8s:
		return probes.K8sRunbook
	}
	return ""
}

// Env exports nothing for a prod stack (KUBECONFIG is left as it is); the
// notes say which kubeconfig nestor reads and how to fetch it.
func (Kind) Env(t *topology.Topology, kc probes.Kubeconfig, none *probes.NoTarget, suggest func(string) string) ([]probes.EnvVar, []string, error) {
	notes := []string{fmt.Sprintf("stack %s is %s: nestor env exports nothing for it (KUBECONFIG is left as it is).", t.Name, t.TargetKind)}
	fetch := probes.FetchCommand(t, suggest)
	switch {
	case none != nil && none.Kind == probes.NoKubeconfig:
		return nil, append(notes, fmt.Sprintf("nestor has no kubeconfig for it: add `kubeconfig: ~/.kube/%s.config` to %s, then %s.", t.Name, t.Path, fetch)), nil
	case none != nil:
		notes = append(notes, fmt.Sprintf("nestor reads %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc)))
		return nil, append(notes, fmt.Sprintf("it does not exist yet: fetch it with %s.", fetch)), nil
	}
	notes = append(notes, fmt.Sprintf("nestor reads %s (from %s).", strings.Join(kc.Paths, ":"), probes.SourceText(kc)))
	if kc.Source == probes.SourceEnv {
		notes = append(notes, "note: the exported KUBECONFIG beats the topology's kubeconfig:; unset it if it is not this stack's.")
	}
	return nil, notes, nil
}

// Fetch: a prod stack's kubeconfig is fetched from a control-plane node.
func (Kind) Fetch(*topology.Topology, string) error { return nil }

// Selected: stack select checks and completes a prod target itself.
func (Kind) Selected(*topology.Topology, string, func(string) string) string { return "" }
