package views

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// Discover writes discover's human report r of stack s, in colour when
// color is true (the words preview colours, coloured alike).
func Discover(w io.Writer, r *action.DiscoverReport, s *action.Stack, color bool) {
	p := newPalette(color)
	if r.Kapsule != nil {
		discoverKapsule(w, r, s, p)
		return
	}
	fmt.Fprintf(w, "Stack %s (%s) — read now from %s (context %s, kubeconfig %s); nothing was written.\n\n",
		p.bold(r.Stack.Name), r.Stack.TargetKind, r.Target.Endpoint, r.Target.Context, strings.Join(r.Target.Kubeconfig, ":"))
	if r.ServerVersion.Known {
		fmt.Fprintf(w, "%s  %s\n", p.bold("SERVER"), r.ServerVersion.Value)
	} else {
		fmt.Fprintf(w, "%s  %s\n", p.bold("SERVER"), unknownText(p, r.ServerVersion.Reason))
	}
	discoverNodes(w, r, p)
	if r.Namespaces.Known {
		fmt.Fprintf(w, "\n%s (%d)\n  %s\n", p.bold("NAMESPACES"), len(r.Namespaces.Value), strings.Join(r.Namespaces.Value, ", "))
	} else {
		fmt.Fprintf(w, "\n%s %s\n", p.bold("NAMESPACES"), unknownText(p, r.Namespaces.Reason))
	}
	discoverStorageClasses(w, r, p)
	if r.CRDGroups.Known {
		fmt.Fprintf(w, "\n%s (%d)\n", p.bold("CRD GROUPS"), len(r.CRDGroups.Value))
		if len(r.CRDGroups.Value) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(r.CRDGroups.Value, ", "))
		}
	} else {
		fmt.Fprintf(w, "\n%s %s\n", p.bold("CRD GROUPS"), unknownText(p, r.CRDGroups.Reason))
	}
	discoverLayers(w, r, p)
	fmt.Fprintf(w, "\nA topology draft of this cluster: %s\n", s.Suggest("discover -o yaml"))
}

// discoverNodes writes discover's NODES section: the node table of preview
// (renderNodes: the same columns in the same order).
func discoverNodes(w io.Writer, r *action.DiscoverReport, p palette) {
	if !r.Nodes.Known {
		fmt.Fprintf(w, "\n%s %s\n", p.bold("NODES"), unknownText(p, r.Nodes.Reason))
		return
	}
	ready := topology.CountReady(r.Nodes.Value)
	fmt.Fprintf(w, "\n%s (%d, %d Ready)\n", p.bold("NODES"), len(r.Nodes.Value), ready)
	renderNodeTable(w, "  ", r.Nodes.Value, p)
}

// discoverStorageClasses writes discover's STORAGECLASSES section, the
// default marked, and a warning when several are marked default.
func discoverStorageClasses(w io.Writer, r *action.DiscoverReport, p palette) {
	if !r.StorageClasses.Known {
		fmt.Fprintf(w, "\n%s %s\n", p.bold("STORAGECLASSES"), unknownText(p, r.StorageClasses.Reason))
		return
	}
	fmt.Fprintf(w, "\n%s (%d)\n", p.bold("STORAGECLASSES"), len(r.StorageClasses.Value))
	if len(r.StorageClasses.Value) > 0 {
		tw := newTable("  ")
		tw.row("NAME", "PROVISIONER", "DEFAULT", "BACKEND")
		for _, sc := range r.StorageClasses.Value {
			def := ""
			if sc.Default {
				def = "(default)"
			}
			tw.row(sc.Name, sc.Provisioner, def, cmp.Or(topology.BackendForProvisioner(sc.Provisioner), "<none>"))
		}
		tw.write(w)
	}
	if r.DefaultStorage.Known && r.DefaultStorage.Value.Class == "" {
		fmt.Fprintln(w, "  no default StorageClass")
	}
	if r.DefaultStorage.Known && len(r.DefaultStorage.Value.OtherDefaults) > 0 {
		fmt.Fprintf(w, "  %s %s\n", p.yellow("WARNING"), r.DefaultStorage.Value.Warning)
	}
}

// discoverLayers writes discover's LAYERS DETECTED section, the declared
// layers not found, and the catalog layers it may miss.
func discoverLayers(w io.Writer, r *action.DiscoverReport, p palette) {
	if r.LayersUnread != "" {
		// A count of a search that could not look everywhere is no count.
		fmt.Fprintf(w, "\n%s (%d found, the search incomplete: %s)\n", p.bold("LAYERS DETECTED"), len(r.Layers), unknownText(p, r.LayersUnread))
	} else {
		fmt.Fprintf(w, "\n%s (%d)\n", p.bold("LAYERS DETECTED"), len(r.Layers))
	}
	tw := newTable("  ")
	for _, l := range r.Layers {
		decl := "not declared"
		if l.Declared {
			decl = "declared"
		}
		cells := []string{l.Name, healthText(p, l.Health), decl}
		if l.Reason != "" {
			cells = append(cells, l.Reason)
		}
		tw.row(cells...)
	}
	tw.write(w)
	for _, l := range r.NotFound {
		fmt.Fprintf(w, "  declared %s: %s (%s)\n", l.Name, healthText(p, l.Health), l.Reason)
	}
	if len(r.BlindSpots) > 0 {
		fmt.Fprintf(w, "  (these install no CRD or StorageClass, so undeclared they are found only when their namespace is read for a declared layer: %s)\n", strings.Join(r.BlindSpots, ", "))
	}
}

// discoverKapsule is discover's human report of a kapsule stack.
func discoverKapsule(w io.Writer, r *action.DiscoverReport, s *action.Stack, pl palette) {
	k, pr := r.Kapsule, r.Target.Provider
	fmt.Fprintf(w, "Stack %s (kapsule) — read now from %s (region %s; credentials: %s, access key %s); nothing was written.\n\n",
		pl.bold(r.Stack.Name), pr.APIURL, pr.Region, pr.Credentials, pr.AccessKey)
	tw := newTable("  ")
	if k.Clusters.Known {
		fmt.Fprintf(w, "%s (%d)\n", pl.bold("CLUSTERS OF THE PROJECT IN "+pr.Region), len(k.Clusters.Value))
		tw.row("", "NAME", "ID", "STATUS", "VERSION", "CNI")
		for _, c := range k.Clusters.Value {
			mark := ""
			if strings.EqualFold(c.ID, k.Declared) {
				mark = "*"
			}
			tw.row(mark, c.Name, c.ID, statusText(pl, c.Status, "ready"), c.Version, c.CNI)
		}
		tw.write(w)
		fmt.Fprintf(w, "  (* the stack's cluster, scaleway.cluster_id)\n")
	} else {
		fmt.Fprintf(w, "%s %s\n", pl.bold("CLUSTERS OF THE PROJECT"), unknownText(pl, k.Clusters.Reason))
	}
	o := k.Observed
	fmt.Fprintln(w)
	switch {
	case o.Cluster.Known:
		c := o.Cluster.Value
		fmt.Fprintf(w, "%s %s (%s): %s, %s, type %s, CNI %s, auto-upgrade %t\n  cluster_url %s\n", pl.bold("CLUSTER"), c.Name, c.ID, statusText(pl, c.Status, "ready"), c.Version, c.Type, c.CNI, c.AutoUpgrade, c.URL)
	default:
		fmt.Fprintf(w, "%s %s %s\n", pl.bold("CLUSTER"), k.Declared, unknownText(pl, o.Cluster.Reason))
	}
	if o.Pools.Known {
		fmt.Fprintf(w, "\n%s (%d)\n", pl.bold("POOLS"), len(o.Pools.Value))
		tw.row("NAME", "STATUS", "VERSION", "NODE TYPE", "ZONE", "SIZE", "NODES READY")
		for _, p := range o.Pools.Value {
			size := fmt.Sprint(p.Size)
			if p.Autoscaling {
				size = fmt.Sprintf("%d (autoscaling %d–%d)", p.Size, p.MinSize, p.MaxSize)
			}
			tw.row(p.Name, statusText(pl, p.Status, "ready"), p.Version, p.NodeType, p.Zone, size, nodesReady(o, p.ID))
		}
		tw.write(w)
	} else {
		fmt.Fprintf(w, "\n%s %s\n", pl.bold("POOLS"), unknownText(pl, o.Pools.Reason))
	}
	if len(o.Provider) > 0 {
		fmt.Fprintf(w, "\n%s\n  %s\n", pl.bold("THE PROVIDER'S"), strings.Join(o.Provider, "\n  "))
	}
	if o.InCluster != "" {
		fmt.Fprintf(w, "\n%s %s\n", pl.bold("IN-CLUSTER"), unknownText(pl, o.InCluster))
	} else {
		fmt.Fprintf(w, "\n%s (%d)\n", pl.bold("LAYERS DETECTED"), len(r.Layers))
		for _, l := range r.Layers {
			tw.row(l.Name, healthText(pl, l.Health), l.Reason)
		}
		tw.write(w)
		for _, l := range r.NotFound {
			fmt.Fprintf(w, "  declared %s: %s (%s)\n", l.Name, healthText(pl, l.Health), l.Reason)
		}
	}
	fmt.Fprintf(w, "\nA topology draft of this cluster: %s\n", s.Suggest("discover -o yaml"))
}
