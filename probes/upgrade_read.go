package probes

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"sort"
	"sync"
	"time"

	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// API paths of the upgrade judgement's reads.
const (
	pathCoreDiscovery  = "/api"
	pathGroupDiscovery = "/apis"
	pathMetrics        = "/metrics"
	pathIdentityLeases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
	pathPDBs           = "/apis/policy/v1/poddisruptionbudgets"
	// pathPodsIn is a namespace's pods, read as a Table (name and node).
	pathPodsIn = "/api/v1/namespaces/%s/pods"
	// podReadsInFlight is how many budgets' pods are read at once.
	podReadsInFlight = 4
	// acceptMetrics asks for the Prometheus text exposition, the format
	// ParseDeprecatedAPIMetrics reads.
	acceptMetrics = "text/plain;version=0.0.4"
)

// ReadUpgrade reads what the upgrade judgement (upgrade.JudgeUpgrade)
// needs for due, and only that: nothing when due.Nothing(); discovery
// (GET /api and /apis as the aggregated document, DiscoveryAccept), the
// API server's /metrics (streamed, read until the deprecated-API gauge and
// the process start are had, ParseDeprecatedAPIMetrics) and the API server
// identity leases (IdentityLeaseSelector) when a minor is due
// (due.ReadsAPIs); the PodDisruptionBudgets of all namespaces (one list)
// when a step drains nodes (due.ReadsPDBs), and for each that may hold a
// drain the nodes its pods run on (a Table of its namespace's pods its
// selector selects: their names and nodes only). The layers' images are no
// read of their own: upgrade.LayerImages takes them from the workloads
// the main read listed. The reads run at once, within what is left of the
// stack's one deadline, each through its bound, GET only through the
// target's read-only transport.
//
// Every read that fails is an unknown fact with Classify's reason
// ("forbidden (…)", "timed out after 10s"), never an empty list; with no
// target loaded (op.Target nil), every needed fact is unknown with why.
func (op *Opened) ReadUpgrade(ctx context.Context, due upgrade.UpgradeDue) upgrade.UpgradeFacts {
	var f upgrade.UpgradeFacts
	if due.Nothing() || (!due.ReadsAPIs() && !due.ReadsPDBs()) {
		return f
	}
	c, err := op.Target.clients()
	if op.Target == nil || err != nil {
		why := op.notReadReason(err).Prefixed("the cluster's API server was not read: ")
		if due.ReadsAPIs() {
			f.Served = topology.UnknownFact[upgrade.ServedAPIs](why)
			f.DeprecatedCalls = topology.UnknownFact[upgrade.DeprecatedCalls](why)
		}
		if due.ReadsPDBs() {
			f.PDBs = topology.UnknownFact[[]upgrade.PDBState](why)
		}
		return f
	}
	if op.deadline.IsZero() {
		op.deadline = time.Now().Add(op.Timeout())
	}
	rctx, cancel := context.WithDeadline(ctx, op.deadline)
	defer cancel()
	bctx, bcancel, budget := op.Target.bound(rctx)
	defer bcancel()
	var wg sync.WaitGroup
	run := func(read func()) {
		wg.Add(1)
		go func() { defer wg.Done(); read() }()
	}
	var metrics DeprecatedAPIMetrics
	var metricsErr, leasesErr error
	var ids APIServerIdentities
	if due.ReadsAPIs() {
		run(func() { f.Served = readServed(bctx, c, budget) })
		run(func() { metrics, metricsErr = readDeprecatedMetrics(bctx, c) })
		run(func() { ids, leasesErr = readIdentityLeases(bctx, c) })
	}
	if due.ReadsPDBs() {
		run(func() { f.PDBs = readPDBs(bctx, c, budget) })
	}
	wg.Wait()
	if due.ReadsAPIs() {
		if metricsErr != nil {
			f.DeprecatedCalls = topology.UnknownFact[upgrade.DeprecatedCalls](failReason(bctx, budget, metricsErr))
		} else {
			f.DeprecatedCalls = topology.KnownFact(DeprecatedCallsFrom(metrics, InstancesFact(ids, leasesErr)))
		}
	}
	return f
}

// notReadReason says why op has no client: no target resolved, a
// kubeconfig that did not load, none resolved (a managed stack read
// through its provider alone), or err, the client's own refusal.
func (op *Opened) notReadReason(err error) topology.Why {
	switch {
	case op.NoTarget != nil:
		return topology.Because(topology.ReasonNoTarget, op.NoTarget.Error())
	case op.LoadErr != nil:
		return Explain(op.LoadErr)
	case op.Target == nil:
		return topology.Because(topology.ReasonNoTarget, "no kubeconfig was resolved")
	}
	return Explain(err)
}

// readServed reads the two aggregated discovery documents.
func readServed(ctx context.Context, c *clients, budget time.Duration) topology.Fact[upgrade.ServedAPIs] {
	var core, groups []byte
	var coreErr, groupsErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		core, coreErr = c.get(ctx, pathCoreDiscovery, DiscoveryAccept, nil, DiscoveryLimit, "the discovery document of a whole API server")
	}()
	go func() {
		defer wg.Done()
		groups, groupsErr = c.get(ctx, pathGroupDiscovery, DiscoveryAccept, nil, DiscoveryLimit, "the discovery document of a whole API server")
	}()
	wg.Wait()
	for _, e := range []struct {
		path string
		err  error
	}{{pathCoreDiscovery, coreErr}, {pathGroupDiscovery, groupsErr}} {
		if e.err != nil {
			return topology.UnknownFact[upgrade.ServedAPIs](failReason(ctx, budget, e.err).Prefixed("discovery (GET " + e.path + "): "))
		}
	}
	served, err := DecodeDiscovery(bytes.NewReader(core), bytes.NewReader(groups), DiscoveryLimit)
	if err != nil {
		return topology.UnknownFact[upgrade.ServedAPIs](topology.Because(topology.ReasonAnswerRefused, "discovery: "+Sanitize(err.Error())))
	}
	return topology.KnownFact(served)
}

// readDeprecatedMetrics streams GET /metrics into ParseDeprecatedAPIMetrics,
// which stops reading once it has what it keeps.
func readDeprecatedMetrics(ctx context.Context, c *clients) (DeprecatedAPIMetrics, error) {
	body, err := c.stream(ctx, pathMetrics, acceptMetrics, nil)
	if err != nil {
		return DeprecatedAPIMetrics{}, err
	}
	defer body.Close()
	m, err := ParseDeprecatedAPIMetrics(body, DeprecatedMetricsLimit)
	if err != nil {
		return m, fmt.Errorf("its exposition: %w", err)
	}
	return m, nil
}

// readIdentityLeases lists the API server identity leases of kube-system.
func readIdentityLeases(ctx context.Context, c *clients) (APIServerIdentities, error) {
	body, err := c.get(ctx, pathIdentityLeases, acceptJSON, map[string]string{"labelSelector": IdentityLeaseSelector}, LeaseListLimit, "the identity lease list")
	if err != nil {
		return APIServerIdentities{}, err
	}
	ids, err := DecodeIdentityLeases(bytes.NewReader(body), LeaseListLimit, time.Now())
	if err != nil {
		return ids, &AnswerRefusedError{Err: err}
	}
	return ids, nil
}

// readPDBs lists every PodDisruptionBudget in one request, then, for each
// that may hold a drain (PDBState.MayHoldDrain), the nodes its pods run on
// (readPodNodes), a few budgets at a time.
func readPDBs(ctx context.Context, c *clients, budget time.Duration) topology.Fact[[]upgrade.PDBState] {
	body, err := c.get(ctx, pathPDBs, acceptJSON, nil, PDBListLimit, "the PodDisruptionBudget list")
	if err != nil {
		return topology.UnknownFact[[]upgrade.PDBState](failReason(ctx, budget, err).Prefixed("PodDisruptionBudgets (GET " + pathPDBs + "): "))
	}
	pdbs, err := DecodePDBList(bytes.NewReader(body), PDBListLimit)
	if err != nil {
		return topology.UnknownFact[[]upgrade.PDBState](topology.Because(topology.ReasonAnswerRefused, "PodDisruptionBudgets: "+Sanitize(err.Error())))
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, podReadsInFlight)
	for i := range pdbs {
		p := &pdbs[i]
		if !p.MayHoldDrain() || p.PodNodes.Known || p.PodNodes.Reason != "" {
			continue // it holds nothing, or its selector already said
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
				p.PodNodes = readPodNodes(ctx, c, budget, p.Namespace, p.Selector)
			case <-ctx.Done():
				p.PodNodes = topology.UnknownFact[[]string](failReason(ctx, budget, ctx.Err()))
			}
		}()
	}
	wg.Wait()
	return topology.KnownFact(pdbs)
}

// readPodNodes returns the nodes the pods of namespace ns that selector
// selects run on, sorted and each once, from the pods' Table (its Name and
// Node columns only: includeObject=None, so no pod's spec is read); a pod
// not scheduled yet (Node "<none>" or empty) runs on none. Unknown, with
// the reason, when the list fails.
func readPodNodes(ctx context.Context, c *clients, budget time.Duration, ns, selector string) topology.Fact[[]string] {
	path := fmt.Sprintf(pathPodsIn, url.PathEscape(ns))
	var extra map[string]string
	if selector != "" {
		extra = map[string]string{"labelSelector": selector}
	}
	seen := map[string]bool{}
	nodes := []string{}
	err := listTableWith(ctx, c, path, pageSize, extra, []string{"Name", "Node"}, func(cells []string) {
		if cells[1] == "" || cells[1] == "<none>" {
			return
		}
		node := SanitizeName(cells[1])
		if seen[node] {
			return
		}
		seen[node] = true
		nodes = append(nodes, node)
	})
	if err != nil {
		return topology.UnknownFact[[]string](failReason(ctx, budget, err).Prefixed("its pods (GET " + path + "): "))
	}
	sort.Strings(nodes)
	return topology.KnownFact(nodes)
}
