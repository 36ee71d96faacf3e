package topology

import (
	"fmt"
	"sort"
	"strings"

	"nestor.dev/nestor/kube"
)

// VersionsState is the versions part of ACTUAL: the API server's version
// and the registered nodes' kubelets grouped by version.
type VersionsState struct {
	// APIServer is the API server's gitVersion, parsed (always Known: an
	// unparseable one makes the whole Versions fact unknown).
	APIServer kube.Version `json:"api_server"`
	// Kubelets groups the nodes by kubelet version, newest first, the
	// versions that do not parse last; unknown with the nodes' reason when
	// the nodes could not be read.
	Kubelets Fact[[]KubeletGroup] `json:"kubelets"`
}

// KubeletGroup is the nodes whose kubelet reports one version string.
type KubeletGroup struct {
	Version kube.Version `json:"version"`
	Count   int          `json:"count"`
	// Nodes are the node names, sorted.
	Nodes []string `json:"nodes"`
}

// OnNodes is g's nodes in words: "on node-a", or "on 3 nodes (a, b, c)"
// with at most 5 names then "and N more".
func (g KubeletGroup) OnNodes() string {
	const shown = 5
	names := g.Nodes
	more := ""
	if len(names) > shown {
		more = fmt.Sprintf(" and %d more", len(names)-shown)
		names = names[:shown]
	}
	if g.Count == 1 && len(g.Nodes) == 1 {
		return "on " + g.Nodes[0]
	}
	return fmt.Sprintf("on %d nodes (%s%s)", g.Count, strings.Join(names, ", "), more)
}

// DeriveVersions returns the versions part of ACTUAL from what a probe
// already read — the API server's gitVersion and the nodes' kubelet versions
// (status.nodeInfo.kubeletVersion) — with no request of its own. It is
// unknown, with the reason, when the server version is unknown or does not
// parse; Kubelets is unknown with the nodes' reason when nodes is unknown. A
// node reporting no or an unparseable kubelet version is a group whose
// Version is unknown, with why.
func DeriveVersions(server Fact[string], nodes Fact[[]NodeState]) Fact[VersionsState] {
	if !server.Known {
		return UnknownFact[VersionsState](server.Why())
	}
	sv := kube.ParseVersion(server.Value)
	if !sv.Known {
		return UnknownFact[VersionsState](Because(ReasonUnrecognised, "API server version "+sv.Reason))
	}
	st := VersionsState{APIServer: sv}
	if !nodes.Known {
		st.Kubelets = UnknownFact[[]KubeletGroup](nodes.Why())
		return KnownFact(st)
	}
	byRaw := map[string]*KubeletGroup{}
	for _, n := range nodes.Value {
		g, ok := byRaw[n.KubeletVersion]
		if !ok {
			v := kube.ParseVersion(n.KubeletVersion)
			if n.KubeletVersion == "" {
				v.Reason = "not reported by the node (status.nodeInfo.kubeletVersion is empty)"
			}
			g = &KubeletGroup{Version: v}
			byRaw[n.KubeletVersion] = g
		}
		g.Count++
		g.Nodes = append(g.Nodes, n.Name)
	}
	groups := make([]KubeletGroup, 0, len(byRaw))
	for _, g := range byRaw {
		sort.Strings(g.Nodes)
		groups = append(groups, *g)
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i].Version, groups[j].Version
		if a.Known != b.Known {
			return a.Known
		}
		if a.Known {
			if c := kube.CompareVersions(a, b); c != 0 {
				return c > 0
			}
		}
		return a.Raw < b.Raw
	})
	st.Kubelets = KnownFact(groups)
	return KnownFact(st)
}

// DeriveVersions sets o.Versions from o.ServerVersion and o.Nodes (see the
// function DeriveVersions). A prober's caller calls it once, after the
// probe, so that ACTUAL shows the versions; the plan (plan.Build) derives them itself and
// does not depend on it.
func (o *Observed) DeriveVersions() {
	o.Versions = DeriveVersions(o.ServerVersion, o.Nodes)
}

// ClusterVersion returns the version the cluster runs as o read it, the
// one rule every view, format and judgement uses: a managed cluster's as
// its provider reports it (o.Kapsule: the provider runs the control plane
// and upgrades it), else the API server's (o.Versions, else
// o.ServerVersion). Unknown, with the reason, when none was read or it does
// not parse; a nil o read nothing.
func (o *Observed) ClusterVersion() kube.Version {
	if o == nil {
		return kube.Version{Reason: "nothing was read"}
	}
	if k := o.Kapsule; k != nil {
		if !k.Cluster.Known {
			return kube.Version{Reason: "the provider's cluster: " + OrNotRead(k.Cluster.Reason)}
		}
		return kube.ParseVersion(k.Cluster.Value.Version)
	}
	if o.Versions.Known {
		return o.Versions.Value.APIServer
	}
	if !o.ServerVersion.Known {
		return kube.Version{Reason: "server version: " + OrNotRead(o.ServerVersion.Reason)}
	}
	return kube.ParseVersion(o.ServerVersion.Value)
}
