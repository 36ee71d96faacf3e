package action

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// ---------------------------------------------------------------------------
// discover (read-only report)

// DiscoverFormatVersion is the version of discover's JSON document.
const DiscoverFormatVersion = 1

// DiscoverReport is what discover read: the JSON document and the source of
// the text report and of the -o yaml draft.
type DiscoverReport struct {
	FormatVersion  int                                    `json:"format_version"`
	Stack          StackInfo                              `json:"stack"`
	Target         *TargetInfo                            `json:"target"`
	ServerVersion  topology.Fact[string]                  `json:"server_version"`
	Nodes          topology.Fact[[]topology.NodeState]    `json:"nodes"`
	Namespaces     topology.Fact[[]string]                `json:"namespaces"`
	StorageClasses topology.Fact[[]topology.StorageClass] `json:"storage_classes"`
	DefaultStorage topology.Fact[topology.StorageState]   `json:"default_storage"`
	CRDGroups      topology.Fact[[]string]                `json:"crd_groups"`
	// Layers are the layers detected: the declared ones found healthy or
	// degraded, in the topology's order, then the catalog layers the
	// cluster shows a specific sign of (any health), in catalog order.
	Layers []topology.LayerState `json:"layers"`
	// ReadAt is when the read ended (the draft's "read on" date).
	ReadAt time.Time `json:"-"`
	// NotFound are declared layers the cluster does not show (absent) or
	// that could not be judged (unknown, with the reason).
	NotFound []topology.LayerState `json:"not_found"`
	// BlindSpots are the catalog layers the stack does not declare that
	// discover may miss: they install no CRD and no StorageClass, so they
	// are found only when their namespace is read for a declared layer.
	BlindSpots []string `json:"blind_spots"`
	// LayersUnread says why the search for undeclared layers is
	// incomplete (topology.Observed.UndeclaredUnread: the CRD or
	// StorageClass list, or every workload list, could not be read), so
	// Layers may not be all; "" when it read everything it needed.
	LayersUnread string `json:"layers_unread,omitempty"`
	// Kapsule is a kapsule stack's provider side: the project's clusters
	// in the region and what the API said of the declared one.
	Kapsule *KapsuleDiscovery `json:"kapsule,omitempty"`
}

// Discover is `nestor discover` without --cp: it opens the stack's target
// through the pipeline (the guard, or the offline check without a prompt),
// reads the cluster — never the machines: a lima stack is read through its
// bench kubeconfig only, without limactl — and reports what it runs.
type Discover struct {
	Config
	Selection Selection
}

// Run returns the report of the selected stack and the stack. Errors: the
// stack does not load; the pipeline refused or could not open the target;
// the stack has no target (nothing to discover, with the fix); ctx ended.
func (d Discover) Run(ctx context.Context) (*DiscoverReport, *Stack, error) {
	s, err := d.LoadStack(d.Selection)
	if err != nil {
		return nil, nil, err
	}
	op, err := d.Open(ctx, s, OpenOptions{})
	if err != nil {
		return nil, s, err
	}
	if op.Provider != nil {
		r, err := discoverProvider(ctx, s, op)
		return r, s, err
	}
	switch {
	case op.LoadErr != nil:
		return nil, s, op.LoadErr
	case op.NoTarget != nil && op.Kubeconfig.Source == probes.SourceBench:
		return nil, s, fmt.Errorf("stack %s: %v; see `%s`", s.Name, op.NoTarget, s.Suggest("next"))
	case op.NoTarget != nil:
		return nil, s, fmt.Errorf("nothing to discover: %v", op.NoTarget)
	}
	obs, facts, err := read(ctx, s.Kind, op, probes.ReadCluster)
	if err != nil {
		return nil, s, err
	}
	if !obs.ServerVersion.Known && !obs.Nodes.Known {
		return nil, s, fmt.Errorf("cannot read the bench %s (kubeconfig %s): %s", op.Target.Endpoint, strings.Join(op.Kubeconfig.Paths, ":"), obs.ServerVersion.Reason)
	}
	r := &DiscoverReport{
		FormatVersion:  DiscoverFormatVersion,
		ReadAt:         time.Now(),
		Stack:          StackInfo{Name: s.Name, File: s.Path, TargetKind: s.TargetKind},
		Target:         NewTargetInfo(s.Topology, op.Target, op.Check),
		ServerVersion:  obs.ServerVersion,
		Nodes:          obs.Nodes,
		Namespaces:     facts.Namespaces,
		StorageClasses: facts.StorageClasses,
		DefaultStorage: obs.Storage,
		CRDGroups:      facts.CRDGroups,
		Layers:         []topology.LayerState{},
		NotFound:       []topology.LayerState{},
		BlindSpots:     undeclaredBlindSpots(s.Topology),
		LayersUnread:   obs.UndeclaredUnread,
	}
	for _, l := range obs.Layers {
		// An undeclared catalog layer is only listed when a specific sign
		// of it was seen (topology.Undeclared), whatever its health.
		if !l.Declared || l.Health == topology.Healthy || l.Health == topology.Degraded || l.Health == topology.Suspended {
			r.Layers = append(r.Layers, l)
		} else {
			r.NotFound = append(r.NotFound, l)
		}
	}
	return r, s, nil
}

// Draft returns the -o yaml topology draft of r for stack s, named name
// (s's name when ""), after checking that it validates as a topology of
// the stacks folder. Errors: name is not a stack name; the draft does not
// validate (a nestor bug: every cluster it can read must draft a valid
// topology).
func Draft(s *Stack, r *DiscoverReport, name, home string) ([]byte, error) {
	if name == "" {
		name = s.Name
	}
	if err := topology.CheckName(name); err != nil {
		return nil, fmt.Errorf("--name: %w", err)
	}
	draft := draftTopology(s.Topology, r, name, home)
	if r.Kapsule != nil {
		draft = draftKapsule(s.Topology, r, name)
	}
	if _, err := topology.Parse(filepath.Join(filepath.Dir(s.Path), name+".yaml"), draft); err != nil {
		return nil, fmt.Errorf("the draft does not validate (a nestor bug, please report it): %w", err)
	}
	return draft, nil
}

// undeclaredBlindSpots names the catalog layers t does not declare that
// the prober may miss: they have neither CRD groups nor
// provisioners, the cheap signals (topology.SignalSeen) that make it read
// an undeclared layer's namespaces. Saying so keeps "LAYERS DETECTED" from
// passing for a complete list.
func undeclaredBlindSpots(t *topology.Topology) []string {
	declared := map[string]bool{}
	for _, l := range t.Layers {
		declared[l.Name] = true
	}
	var out []string
	for _, d := range topology.Catalog() {
		if !declared[d.Name] && len(d.CRDGroups) == 0 && len(d.Provisioners) == 0 {
			out = append(out, d.Name)
		}
	}
	return out
}

// draftTopology writes a topology (format version 1) for the cluster r
// describes, named name: target_kind and kubeconfig: as t declares them (a
// relative kubeconfig: or inventory: made absolute, so the draft reads the
// same file wherever it is saved), endpoint: the target's, kubernetes.version
// the server's minor, nodes with their roles and InternalIP, backend: the
// default StorageClass's catalog layer (t's spelling kept when it names the
// same layer), and the layers detected (DiscoverReport.Layers): t's declared
// ones in its order, then the other catalog layers in catalog order. What
// could not be read is a comment saying so, never a guess.
func draftTopology(t *topology.Topology, r *DiscoverReport, name, home string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Topology draft of the cluster at %s, written by nestor discover from what it\n", r.Target.Endpoint)
	fmt.Fprintf(&b, "# read (read-only) on %s. Review it, then save it as %s.yaml in the stacks folder.\n", r.ReadAt.UTC().Format(time.DateOnly), name)
	fmt.Fprintf(&b, "name: %s\n", topology.YAMLScalar(name))
	fmt.Fprintf(&b, "target_kind: %s\n", t.TargetKind)
	if r.Target.Source != string(probes.SourceBench) {
		switch {
		case t.Kubeconfig != "":
			fmt.Fprintf(&b, "kubeconfig: %s\n", topology.YAMLScalar(absIfRelative(t, t.Kubeconfig)))
		case r.Target.Source == string(probes.SourceFlag) && len(r.Target.Kubeconfig) == 1:
			fmt.Fprintf(&b, "kubeconfig: %s\n", topology.YAMLScalar(r.Target.Kubeconfig[0]))
		default:
			fmt.Fprintf(&b, "# kubeconfig: read through %s; declare the stack's own file here\n", r.Target.SourceDetail)
		}
		fmt.Fprintf(&b, "endpoint: %s\n", topology.YAMLScalar(r.Target.Endpoint))
	}
	if r.ServerVersion.Known {
		if v := kube.ParseVersion(r.ServerVersion.Value); v.Known {
			minor := v.MinorString()
			fmt.Fprintf(&b, "kubernetes:\n  version: %s\n", topology.YAMLScalar(minor))
		}
	} else {
		fmt.Fprintf(&b, "# kubernetes.version: server version unknown (%s)\n", r.ServerVersion.Reason)
	}
	if t.Inventory != "" {
		fmt.Fprintf(&b, "inventory: %s\n", topology.YAMLScalar(absIfRelative(t, t.Inventory)))
	}
	draftNodes(&b, r.Nodes)
	if t.Lima != nil {
		draftLima(&b, t.Lima)
	}
	layers := draftLayers(t, r)
	draftBackend(&b, t, r.DefaultStorage, layers)
	writeLayerRefs(&b, layers)
	for _, l := range r.NotFound {
		fmt.Fprintf(&b, "# %s (declared in %s): %s — %s\n", l.Name, filepath.Base(t.Path), l.Health, l.Reason)
	}
	return b.Bytes()
}

// draftNodes writes the draft's nodes: with their role (every
// distribution's control-plane role, topology.IsControlPlaneRole) and
// InternalIP, or a comment saying why they are unknown.
func draftNodes(b *bytes.Buffer, nodes topology.Fact[[]topology.NodeState]) {
	if !nodes.Known {
		fmt.Fprintf(b, "# nodes: unknown (%s)\n", nodes.Reason)
		return
	}
	if len(nodes.Value) == 0 {
		b.WriteString("nodes: []\n")
	} else {
		b.WriteString("nodes:\n")
	}
	for _, n := range nodes.Value {
		role := topology.RoleWorker
		if slices.ContainsFunc(n.Roles, topology.IsControlPlaneRole) {
			role = topology.RoleControlPlane
		}
		fmt.Fprintf(b, "  - {name: %s, role: %s", topology.YAMLScalar(n.Name), role)
		if n.InternalIP != "" {
			fmt.Fprintf(b, ", address: %s", topology.YAMLScalar(n.InternalIP))
		}
		b.WriteString("}\n")
	}
}

// draftLima writes a lima stack's lima: section as the stack declares it.
func draftLima(b *bytes.Buffer, l *topology.Lima) {
	b.WriteString("lima:\n")
	for _, kv := range [][2]string{{"template", l.Template}, {"memory", l.Memory}, {"disk", l.Disk}, {"kubeconfig", l.Kubeconfig}} {
		if kv[1] != "" {
			fmt.Fprintf(b, "  %s: %s\n", kv[0], topology.YAMLScalar(kv[1]))
		}
	}
	if l.CPUs != 0 {
		fmt.Fprintf(b, "  cpus: %d\n", l.CPUs)
	}
}

// draftBackend writes backend: when the default StorageClass names a
// detected catalog layer (t's spelling kept when it names the same layer),
// else a comment saying why there is none.
func draftBackend(b *bytes.Buffer, t *topology.Topology, ds topology.Fact[topology.StorageState], layers []topology.LayerRef) {
	present := map[string]bool{}
	for _, l := range layers {
		present[l.Name] = true
	}
	if w := ds.Value.Warning; w != "" {
		fmt.Fprintf(b, "# backend: %s\n", w)
	}
	switch {
	case !ds.Known:
		fmt.Fprintf(b, "# backend: default StorageClass unknown (%s)\n", ds.Reason)
	case ds.Value.Class == "":
		b.WriteString("# backend: the cluster has no default StorageClass\n")
	case ds.Value.Backend == "":
		fmt.Fprintf(b, "# backend: the default StorageClass %s uses %s, which is not in the layer catalog\n", ds.Value.Class, ds.Value.Provisioner)
	case !present[ds.Value.Backend]:
		fmt.Fprintf(b, "# backend: %s (default StorageClass %s), but that layer was not detected as installed\n", ds.Value.Backend, ds.Value.Class)
	default:
		backend := ds.Value.Backend
		if bl, ok := topology.BackendLayer(t.Backend); ok && bl == backend {
			backend = t.Backend
		}
		fmt.Fprintf(b, "backend: %s\n", topology.YAMLScalar(backend))
	}
}

// writeLayerRefs writes the layers: list of a draft: catalog layers by
// name, custom ones with their detect:.
func writeLayerRefs(b *bytes.Buffer, layers []topology.LayerRef) {
	if len(layers) == 0 {
		b.WriteString("layers: []\n")
		return
	}
	b.WriteString("layers:\n")
	for _, l := range layers {
		if l.Detect == nil {
			fmt.Fprintf(b, "  - %s\n", topology.YAMLScalar(l.Name))
			continue
		}
		fmt.Fprintf(b, "  - name: %s\n    detect: {", topology.YAMLScalar(l.Name))
		var parts []string
		for _, kv := range [][2]string{{"deployment", l.Detect.Deployment}, {"daemonset", l.Detect.DaemonSet}, {"statefulset", l.Detect.StatefulSet}, {"namespace", l.Detect.Namespace}, {"crd_group", l.Detect.CRDGroup}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+": "+topology.YAMLScalar(kv[1]))
			}
		}
		if r := l.Detect.Resource; r != nil {
			parts = append(parts, "resource: {apiVersion: "+topology.YAMLScalar(r.APIVersion)+", kind: "+topology.YAMLScalar(r.Kind)+nsPart(r.Namespace)+", name: "+topology.YAMLScalar(r.Name)+"}")
		}
		b.WriteString(strings.Join(parts, ", ") + "}\n")
	}
}

// nsPart is ", namespace: NS" for a namespaced detect.resource, else "".
func nsPart(ns string) string {
	if ns == "" {
		return ""
	}
	return ", namespace: " + topology.YAMLScalar(ns)
}

// draftLayers orders the detected layers: t's declared ones in declaration
// order (custom ones keep their detect:), then the others in report order
// (catalog order).
func draftLayers(t *topology.Topology, r *DiscoverReport) []topology.LayerRef {
	found := map[string]bool{}
	for _, l := range r.Layers {
		found[l.Name] = true
	}
	var out []topology.LayerRef
	seen := map[string]bool{}
	for _, ref := range t.Layers {
		if found[ref.Name] && !seen[ref.Name] {
			out = append(out, ref)
			seen[ref.Name] = true
		}
	}
	for _, l := range r.Layers {
		if !seen[l.Name] {
			out = append(out, topology.LayerRef{Name: l.Name})
			seen[l.Name] = true
		}
	}
	return out
}

// absIfRelative makes a path written relative to the topology's folder
// absolute; ~ and absolute paths stay as written.
func absIfRelative(t *topology.Topology, p string) string {
	if p == "" || p == "~" || strings.HasPrefix(p, "~/") || filepath.IsAbs(p) {
		return p
	}
	return t.ResolvePath(p, "")
}
