// Package lima is target_kind lima: nestor's own bench of Lima VMs, the VMs
// read with `limactl list --json` and the cluster through the bench's own
// generated kubeconfig only (never KUBECONFIG, never --kubeconfig); the
// bench is nestor's own, so there is nothing to confirm.
package lima

import (
	"context"
	"fmt"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// Kind is target_kind lima.
type Kind struct{ Rules }

// Name is lima.
func (Kind) Name() topology.TargetKind { return topology.TargetLima }

// BenchKubeconfig is the bench's own kubeconfig, which no other stack may
// be read through (probes.BenchOwner): Topology.BenchKubeconfig(home).
func (Kind) BenchKubeconfig(t *topology.Topology, home string) string {
	return t.BenchKubeconfig(home)
}

// Resolve returns the bench kubeconfig, Topology.BenchKubeconfig(o.Home),
// Source SourceBench; KUBECONFIG is ignored. Errors: a --kubeconfig flag
// (the bench is nestor's own and read through its own file only).
func (Kind) Resolve(o probes.ResolveOptions) (probes.Kubeconfig, error) {
	t := o.Topology
	bench := t.BenchKubeconfig(o.Home)
	if o.Flag != "" {
		return probes.Kubeconfig{}, fmt.Errorf("--kubeconfig cannot be used with the lima stack %s: nestor reads a bench only through its own kubeconfig (%s); drop --kubeconfig", t.Name, bench)
	}
	detail := "the bench kubeconfig (default for stack " + t.Name + ")"
	if t.Lima != nil && t.Lima.Kubeconfig != "" {
		detail = "lima.kubeconfig in " + t.Path
	}
	return probes.Kubeconfig{Paths: []string{bench}, Source: probes.SourceBench, Detail: detail}, nil
}

// NoTarget: the bench kubeconfig does not exist (the bench cluster has not
// been bootstrapped). One that cannot be stat'ed is left to the load,
// whose error makes the cluster unknown (Opened.LoadErr) with the reason.
func (Kind) NoTarget(t *topology.Topology, kc probes.Kubeconfig) *probes.NoTarget {
	if ok, err := probes.FileExists(kc.Paths[0]); err == nil && !ok {
		return &probes.NoTarget{Kind: probes.NoBenchKubeconfig, Stack: t.Name, File: t.Path, Path: kc.Paths[0]}
	}
	return nil
}

// Guarded: no, the bench is nestor's own.
func (Kind) Guarded() bool { return false }

// Guard: the bench is nestor's own, nothing to confirm.
func (Kind) Guard(context.Context, *probes.Opened) (*probes.GuardView, error) { return nil, nil }

// Read reads the bench cluster through its kubeconfig (unknown, with the
// reason, when it does not load or does not exist yet) and, with
// probes.ReadAll, the VMs with limactl, both at once under the stack's one
// deadline.
func (Kind) Read(ctx context.Context, op *probes.Opened, scope probes.Scope) (*topology.Observed, topology.ClusterFacts) {
	// The VMs and the bench cluster are read at once, within the stack's
	// one deadline (ctx's).
	var vms topology.VMsObserved
	var notVMs []topology.NotVM
	done := make(chan struct{})
	go func() {
		defer close(done)
		if scope != probes.ReadAll {
			return
		}
		run := op.Options().Run
		if run == nil {
			run = probes.ExecRunner
		}
		vms, notVMs = readVMs(ctx, run)
	}()
	var obs *topology.Observed
	var facts topology.ClusterFacts
	switch {
	case op.LoadErr != nil:
		obs = probes.UnknownObservation(op.Topology, topology.Because(topology.ReasonFailed, op.LoadErr.Error()))
	case op.Target == nil:
		obs = probes.UnknownObservation(op.Topology, topology.Because(topology.ReasonNoTarget, op.NoTarget.Error()))
		obs.NoBenchCluster = true
	default:
		obs, facts = probes.ProbeTarget(ctx, op.Target, op.Topology)
	}
	<-done
	if scope == probes.ReadAll {
		obs.VMs, obs.NotVMs = &vms, notVMs
	}
	return obs, facts
}

// Runbook: the VMs are started with limactl, the bench bootstrapped with
// kubeadm, then the node cluster's k8s phase.
func (Kind) Runbook(t *topology.Topology, ph topology.Phase, _ func(string) string) string {
	switch ph.Kind {
	case topology.PhaseKindUp:
		return "RUNBOOK.md § up: `limactl start <node>` for each declared node (template " + template(t) + ")"
	case topology.PhaseKindBootstrap:
		return "RUNBOOK.md § bootstrap: kubeadm init on the first control-plane VM, then `nestor env` to export the bench kubeconfig"
	case topology.PhaseKindK8s:
		return probes.K8sRunbook
	}
	return ""
}

func template(t *topology.Topology) string {
	if t.Lima != nil && t.Lima.Template != "" {
		return t.Lima.Template
	}
	return "of the topology's lima: section"
}

// Env exports the bench kubeconfig as KUBECONFIG. Errors: it does not
// exist yet (nothing to export; next says what runs).
func (Kind) Env(t *topology.Topology, kc probes.Kubeconfig, none *probes.NoTarget, suggest func(string) string) ([]probes.EnvVar, []string, error) {
	if none != nil {
		return nil, nil, fmt.Errorf("stack %s: %v; see `%s`; nothing exported", t.Name, none, suggest("next"))
	}
	return []probes.EnvVar{{Name: "KUBECONFIG", Value: kc.Paths[0]}},
		[]string{fmt.Sprintf("stack %s (lima): KUBECONFIG is the bench kubeconfig", t.Name)}, nil
}

// Fetch: a bench's kubeconfig is its own, never fetched.
func (Kind) Fetch(t *topology.Topology, home string) error {
	return fmt.Errorf("stack %s is %s: its kubeconfig is the bench's own (%s), never fetched; --cp is for prod stacks", t.Name, t.TargetKind, t.BenchKubeconfig(home))
}

// Selected names the bench kubeconfig.
func (Kind) Selected(t *topology.Topology, home string, _ func(string) string) string {
	return "Bench kubeconfig: " + t.BenchKubeconfig(home)
}
