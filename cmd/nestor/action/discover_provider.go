package action

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// KapsuleDiscovery is what discover read from the provider of a kapsule
// stack: the clusters of its project in its region (the declared one
// marked) and the provider's view of the declared cluster.
type KapsuleDiscovery struct {
	Clusters topology.Fact[[]topology.KapsuleCluster] `json:"clusters"`
	// Declared is scaleway.cluster_id.
	Declared string                    `json:"declared"`
	Observed *topology.KapsuleObserved `json:"observed"`
}

// discoverProvider is discover on a managed stack opened as op (its guard
// read the provider: op.Provider): the provider's view, the project's
// clusters when the kind lists them (probes.ClusterLister), and the
// in-cluster part when the guard proved the kubeconfig is the cluster's.
func discoverProvider(ctx context.Context, s *Stack, op *probes.Opened) (*DiscoverReport, error) {
	obs, facts, err := read(ctx, s.Kind, op, probes.ReadCluster)
	if err != nil {
		return nil, err
	}
	provider := *op.Provider
	clusters := topology.UnknownFact[[]topology.KapsuleCluster](topology.Because(topology.ReasonNotRead, "the provider's clusters are not listed for this kind"))
	if l, ok := s.Kind.(probes.ClusterLister); ok {
		clusters = l.Clusters(ctx, op)
	}
	r := &DiscoverReport{
		FormatVersion: DiscoverFormatVersion, ReadAt: time.Now(),
		Stack: StackInfo{Name: s.Name, File: s.Path, TargetKind: s.TargetKind},
		Target: &TargetInfo{Kubeconfig: op.Kubeconfig.Paths, Source: string(op.Kubeconfig.Source), SourceDetail: op.Kubeconfig.Detail,
			Provider: &provider},
		ServerVersion: obs.ServerVersion, Nodes: obs.Nodes, Namespaces: facts.Namespaces, StorageClasses: facts.StorageClasses,
		DefaultStorage: obs.Storage, CRDGroups: facts.CRDGroups, Layers: []topology.LayerState{}, NotFound: []topology.LayerState{},
		BlindSpots: undeclaredBlindSpots(s.Topology),
		Kapsule:    &KapsuleDiscovery{Clusters: clusters, Declared: provider.ClusterID, Observed: obs.Kapsule},
	}
	if op.Target != nil {
		r.Target.Endpoint, r.Target.Context = op.Target.Endpoint, op.Target.Context
	}
	if r.Target.Kubeconfig == nil {
		r.Target.Kubeconfig = []string{}
	}
	for _, l := range obs.Layers {
		if !l.Declared || l.Health == topology.Healthy || l.Health == topology.Degraded || l.Health == topology.Suspended {
			r.Layers = append(r.Layers, l)
		} else {
			r.NotFound = append(r.NotFound, l)
		}
	}
	return r, ctx.Err()
}

// draftKapsule writes a kapsule topology for the cluster r describes,
// named name: scaleway: as t declares it, kubeconfig: as t declares it,
// endpoint: the cluster_url, kubernetes.version the cluster's minor and
// auto_upgrade its setting, the pools from the API (node type as the API
// names it, size or autoscaling, zone), and the layers detected. What
// could not be read is a comment saying so, never a guess.
func draftKapsule(t *topology.Topology, r *DiscoverReport, name string) []byte {
	var b bytes.Buffer
	o, sc := r.Kapsule.Observed, t.Scaleway
	fmt.Fprintf(&b, "# Topology draft of the Kapsule cluster %s, written by nestor discover from what the\n", sc.ClusterID)
	fmt.Fprintf(&b, "# provider's API said (read-only) on %s. Review it, then save it as %s.yaml in the stacks folder.\n", r.ReadAt.UTC().Format(time.DateOnly), name)
	fmt.Fprintf(&b, "name: %s\ntarget_kind: kapsule\nscaleway:\n  region: %s\n  cluster_id: %s\n", topology.YAMLScalar(name), sc.Region, sc.ClusterID)
	project := sc.ProjectID
	if project == "" && o.Cluster.Known {
		project = o.Cluster.Value.ProjectID
	}
	if project != "" {
		fmt.Fprintf(&b, "  project_id: %s\n", project)
	}
	if sc.Profile != "" {
		fmt.Fprintf(&b, "  profile: %s\n", topology.YAMLScalar(sc.Profile))
	}
	if sc.APIURL != "" {
		fmt.Fprintf(&b, "  api_url: %s\n", topology.YAMLScalar(sc.APIURL))
	}
	if t.Kubeconfig != "" {
		fmt.Fprintf(&b, "kubeconfig: %s\n", topology.YAMLScalar(absIfRelative(t, t.Kubeconfig)))
	}
	if !o.Cluster.Known {
		fmt.Fprintf(&b, "# endpoint:, kubernetes: the cluster is unknown (%s)\n", o.Cluster.Reason)
	} else {
		c := o.Cluster.Value
		if c.URL != "" {
			fmt.Fprintf(&b, "endpoint: %s\n", topology.YAMLScalar(c.URL))
		}
		if v := kube.ParseVersion(c.Version); v.Known {
			fmt.Fprintf(&b, "kubernetes:\n  version: %s\n  auto_upgrade: %t\n", topology.YAMLScalar(v.MinorString()), c.AutoUpgrade)
		}
	}
	switch {
	case o.Pools.Known && len(o.Pools.Value) > 0:
		b.WriteString("pools:\n")
		for _, p := range o.Pools.Value {
			fmt.Fprintf(&b, "  - {name: %s, node_type: %s", topology.YAMLScalar(p.Name), topology.YAMLScalar(p.NodeType))
			if p.Autoscaling {
				fmt.Fprintf(&b, ", autoscaling: {min: %d, max: %d}", p.MinSize, p.MaxSize)
			} else {
				fmt.Fprintf(&b, ", size: %d", p.Size)
			}
			if p.Zone != "" {
				fmt.Fprintf(&b, ", zone: %s", p.Zone)
			}
			b.WriteString("}\n")
		}
	case o.Pools.Known:
		b.WriteString("# pools: the cluster has none yet; declare at least one\npools:\n  - {name: default, node_type: PRO2-XXS, size: 1}\n")
	default:
		fmt.Fprintf(&b, "# pools: unknown (%s); declare them\npools:\n  - {name: default, node_type: PRO2-XXS, size: 1}\n", o.Pools.Reason)
	}
	layers := draftLayers(t, r)
	if o.InCluster != "" {
		fmt.Fprintf(&b, "# layers: the in-cluster part was not read (%s); the topology's are kept\n", o.InCluster)
		layers = t.Layers
	}
	writeLayerRefs(&b, layers)
	return b.Bytes()
}
