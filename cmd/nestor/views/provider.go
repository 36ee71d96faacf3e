package views

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// renderProviderTarget is the target line of a managed stack: the cluster,
// the provider's API and the credentials' source (the access key masked),
// then the kubeconfig the layers are read through.
func renderProviderTarget(w io.Writer, r *action.Report, p palette) {
	t := r.Target
	if t == nil || t.Provider == nil {
		return
	}
	pr := t.Provider
	fmt.Fprintf(w, "Target: cluster %s in %s via %s  credentials: %s (access key %s)\n", pr.ClusterID, pr.Region, pr.APIURL, pr.Credentials, pr.AccessKey)
	if t.Endpoint != "" {
		fmt.Fprintf(w, "        in-cluster: %s  context %s  kubeconfig %s (from %s)\n", t.Endpoint, t.Context, strings.Join(t.Kubeconfig, ":"), cmp.Or(t.SourceDetail, t.Source))
	}
}

// renderPoolsDesired adds the pools and auto-upgrade to DESIRED.
func renderPoolsDesired(tw *table, d action.Desired) {
	if d.AutoUpgrade != nil {
		tw.row("auto-upgrade", fmt.Sprint(*d.AutoUpgrade))
	}
	var pools []string
	for _, pl := range d.Pools {
		pools = append(pools, pl.Name+" ("+poolShape(pl)+")")
	}
	tw.row("pools", fmt.Sprintf("%d: %s", len(d.Pools), strings.Join(pools, ", ")))
}

func poolShape(pl topology.Pool) string {
	s := pl.NodeType
	if pl.Autoscaling != nil {
		s += fmt.Sprintf(", autoscaling %d–%d", pl.Autoscaling.Min, pl.Autoscaling.Max)
	} else {
		s += fmt.Sprintf(", size %d", pl.Size)
	}
	if pl.Zone != "" {
		s += ", " + pl.Zone
	}
	return s
}

// renderProviderActual is the provider's part of ACTUAL: the cluster block,
// its offer and headroom, the pools, the provider's objects (once) and the
// calendar lines.
func renderProviderActual(w io.Writer, r *action.Report, p palette) {
	k := r.Actual.Kapsule
	if k == nil {
		return
	}
	renderKapsuleCluster(w, k, p)
	renderOffer(w, r, p)
	renderKapsulePools(w, k, p)
	if k.Nodes.Known {
		for _, n := range k.Nodes.Value {
			if n.Status != "ready" {
				msg := ""
				if n.ErrorMessage != "" {
					msg = " (" + n.ErrorMessage + ")"
				}
				fmt.Fprintf(w, "    node %s: %s%s\n", n.Name, n.Status, msg)
			}
		}
	} else if k.Transient["nodes"] == "" {
		fmt.Fprintf(w, "  nodes       %s\n", unknownText(p, k.Nodes.Reason))
	}
	if len(k.Provider) > 0 {
		fmt.Fprintf(w, "  provider's  %s\n", strings.Join(k.Provider, ", "))
	}
	renderKapsuleCalendar(w, r, k, p)
	switch {
	case r.Actual.InClusterUnread != "":
		fmt.Fprintf(w, "  in-cluster  %s: %s\n", p.yellow("not read"), r.Actual.InClusterUnread)
	case k.InCluster != "":
		fmt.Fprintf(w, "  in-cluster  %s\n", unknownText(p, k.InCluster))
	}
}

// renderKapsuleCluster draws the cluster as the provider's API describes it.
func renderKapsuleCluster(w io.Writer, k *topology.KapsuleObserved, p palette) {
	tw := newTable("  ")
	defer tw.write(w)
	switch c := k.Cluster; {
	case k.Transient["cluster"] != "":
		tw.row("cluster", p.yellow("waiting: "+k.Transient["cluster"]+" (the provider's API answered transient_state)"))
		tw.row("acl", aclText(k, p))
	case !c.Known:
		tw.row("cluster", unknownText(p, c.Reason))
	default:
		v := c.Value
		version := v.Version
		if v.Status == "updating" {
			version = k.UpdatingText()
		}
		auto := "off"
		if v.AutoUpgrade {
			auto = "on"
		}
		tw.row("cluster", fmt.Sprintf("%s (%s)  %s  %s  type %s  CNI %s  auto-upgrade %s", v.Name, v.ID, statusText(p, v.Status, "ready"), version, cmp.Or(v.Type, "?"), cmp.Or(v.CNI, "?"), auto))
		tw.row("cluster_url", v.URL)
		tw.row("acl", aclText(k, p))
	}
}

// aclText is who may reach the cluster's API server, as its ACL rules say:
// each rule (its description in parentheses), then what the rules admit
// whole (topology.ACLOpen); unknown with the reason, or waiting.
func aclText(k *topology.KapsuleObserved, p palette) string {
	a := k.ACLRules
	switch {
	case k.Transient["acl"] != "":
		return p.yellow("waiting: " + k.Transient["acl"] + " (the provider's API answered transient_state)")
	case !a.Known:
		return unknownText(p, topology.OrNotRead(a.Reason))
	case len(a.Value) == 0:
		return "no rule"
	}
	parts := make([]string, len(a.Value))
	for i, r := range a.Value {
		parts[i] = r.String()
		if r.Description != "" {
			parts[i] += " (" + r.Description + ")"
		}
	}
	s := strings.Join(parts, ", ")
	for _, o := range topology.ACLOpen(a.Value) {
		s += "  " + p.yellow("admits "+o.What)
	}
	return s
}

// renderKapsulePools draws the pools: status, version, node type, size or
// autoscaling, nodes ready.
func renderKapsulePools(w io.Writer, k *topology.KapsuleObserved, p palette) {
	switch {
	case k.Transient["pools"] != "":
		fmt.Fprintf(w, "  pools       %s\n", p.yellow("waiting: "+k.Transient["pools"]+" (the provider's API answered transient_state)"))
		return
	case !k.Pools.Known:
		fmt.Fprintf(w, "  pools       %s\n", unknownText(p, k.Pools.Reason))
		return
	}
	fmt.Fprintln(w, "  pools")
	tw := newTable("    ")
	tw.row("NAME", "STATUS", "VERSION", "NODE TYPE", "SIZE", "NODES READY")
	for _, pl := range k.Pools.Value {
		size := fmt.Sprintf("%d", pl.Size)
		if pl.Autoscaling {
			size = fmt.Sprintf("%d (autoscaling %d–%d)", pl.Size, pl.MinSize, pl.MaxSize)
		}
		version := pl.Version
		if pl.Status == "upgrading" {
			version = "upgrading to " + pl.Version
		}
		tw.row(pl.Name, statusText(p, pl.Status, "ready"), version, pl.NodeType, size, nodesReady(k, pl.ID))
	}
	tw.write(w)
}

// renderKapsuleCalendar draws, for each minor the cluster and its pools
// run, the provider's dates (its version list) and where the minor stands
// upstream (SupportText), then the provider's calendar findings; the other
// findings follow the plan.
func renderKapsuleCalendar(w io.Writer, r *action.Report, k *topology.KapsuleObserved, p palette) {
	minors := k.MinorsInUse()
	if len(minors) > 0 {
		fmt.Fprintf(w, "  calendar    (judged as of %s)\n", r.AsOf)
	}
	tw := newTable("    ")
	for _, u := range minors {
		provider := "provider: " + unknownText(p, topology.OrNotRead(k.Versions.Reason))
		if k.Versions.Known {
			provider = "provider: not in its version list"
			if e, ok := k.VersionEntry(u.Version); ok {
				provider = "provider: " + providerDates(e)
			}
		}
		upstream, _ := supportOf(r, u.Version, false)
		tw.row(u.Version.MinorString(), strings.Join(u.Users, ", "), provider+"; upstream: "+upstream)
	}
	tw.write(w)
	for _, f := range r.Plan.Findings {
		if isCalendar(f) {
			fmt.Fprintf(w, "    %s %s: %s\n", severityText(p, f.Severity), f.Subject, f.Message)
		}
	}
}

// providerDates writes a version-list entry's end of life and deprecation
// dates ("end of life 2027-07-01, deprecated 2027-04-01"), or says it
// gives none.
func providerDates(e topology.KapsuleVersion) string {
	var parts []string
	if e.EndOfLifeAt != nil {
		parts = append(parts, "end of life "+e.EndOfLifeAt.UTC().Format(time.DateOnly))
	}
	if e.DeprecatedAt != nil {
		parts = append(parts, "deprecated "+e.DeprecatedAt.UTC().Format(time.DateOnly))
	}
	if len(parts) == 0 {
		return "no dates"
	}
	return strings.Join(parts, ", ")
}

// isCalendar tells the calendar's findings (their subject is a minor) from
// the others.
func isCalendar(f topology.Finding) bool {
	return f.Kind == topology.FindingProviderCalendar
}

func severityText(p palette, sev topology.Severity) string {
	switch sev {
	case topology.SeverityError:
		return p.red(string(sev))
	case topology.SeverityWarning:
		return p.yellow(string(sev))
	}
	return string(sev)
}

func statusText(p palette, status, good string) string {
	if status == good {
		return p.green(status)
	}
	return p.yellow(status)
}

// nodesReady is "ready/total" of the provider's nodes of pool id.
func nodesReady(k *topology.KapsuleObserved, id string) string {
	if !k.Nodes.Known {
		return "?"
	}
	ready, total := 0, 0
	for _, n := range k.Nodes.Value {
		if n.PoolID == id {
			total++
			if n.Status == "ready" {
				ready++
			}
		}
	}
	return fmt.Sprintf("%d/%d", ready, total)
}

// renderWaiting adds PLAN's waiting objects (managed objects the provider
// is moving: no step is planned for them).
func renderWaiting(w io.Writer, r *action.Report, p palette) {
	for _, s := range r.Plan.Waiting {
		fmt.Fprintf(w, "  …  %s %s\n", p.yellow("waiting:"), s)
	}
}

// printProviderTarget shows what a managed kind's guard read before it asks "Is
// this the stack NAME?": the cluster as the provider's API describes it,
// its pools and node count, cluster_url, the credentials' source and the
// kubeconfig the layers would be read through.
func printProviderTarget(w io.Writer, v probes.GuardView) {
	t, k := v.Topology, v.Provider
	fmt.Fprintf(w, "Target of stack %s (%s):\n", t.Name, t.TargetKind)
	if c := k.Cluster; c.Known {
		cl := c.Value
		fmt.Fprintf(w, "  cluster      %s (%s)\n", cl.Name, cl.ID)
		fmt.Fprintf(w, "  region       %s  project %s\n", cl.Region, cl.ProjectID)
		fmt.Fprintf(w, "  status       %s, version %s\n", cl.Status, cl.Version)
		fmt.Fprintf(w, "  cluster_url  %s\n", cl.URL)
	} else {
		fmt.Fprintf(w, "  cluster      %s unknown (%s)\n", t.Scaleway.ClusterID, c.Reason)
	}
	if k.Pools.Known {
		var names []string
		for _, pl := range k.Pools.Value {
			names = append(names, fmt.Sprintf("%s (%s, %s)", pl.Name, pl.NodeType, pl.Status))
		}
		fmt.Fprintf(w, "  pools        %d: %s\n", len(names), strings.Join(names, ", "))
	} else {
		fmt.Fprintf(w, "  pools        unknown (%s)\n", k.Pools.Reason)
	}
	if k.Nodes.Known {
		fmt.Fprintf(w, "  nodes        %d\n", len(k.Nodes.Value))
	} else {
		fmt.Fprintf(w, "  nodes        unknown (%s)\n", k.Nodes.Reason)
	}
	fmt.Fprintf(w, "  API          %s\n", k.APIURL)
	fmt.Fprintf(w, "  credentials  %s (access key %s)\n", k.Credentials, k.AccessKey)
	if v.Target != nil {
		fmt.Fprintf(w, "  kubeconfig   %s (from %s), context %s: server matches cluster_url\n", strings.Join(v.Target.Kubeconfig.Paths, ":"), probes.SourceText(v.Target.Kubeconfig), v.Target.Context)
	} else {
		fmt.Fprintf(w, "  kubeconfig   none: the layers inside the cluster will not be read\n")
	}
}
