package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// fetchOptions are the flags of `discover --cp` that say how to reach the
// control-plane node; zero values take the inventory's, then the topology's
// settings (stack select passes none).
type fetchOptions struct {
	inventory  string
	remotePath string
	user       string
	port       int
	identity   string
}

type discoverOptions struct {
	stack  stackFlags
	output outputFlag
	name   string
	cp     string
	fetch  fetchOptions
}

func newDiscoverCmd(a *App, g *globals) *cobra.Command {
	o := &discoverOptions{output: outputFlag{allowed: []string{"text", "json", "yaml"}, value: "text"}}
	cmd := &cobra.Command{
		Use:   "discover",
		Short: "Report what the stack's cluster runs (read-only), or fetch its kubeconfig with --cp NODE",
		Long: `Without --cp, discover reads the stack's target — read-only, after the target
is confirmed (interactive) or its endpoint checked (--no-input, -o json) — and
reports what it runs: nodes with roles and versions, the server version,
namespaces, StorageClass provisioners (the default marked), CRD groups and the
catalog layers detected. -o yaml prints a topology draft for this cluster on
stdout (never a file); -o json the same report as a versioned document.

With --cp NODE, discover copies the admin kubeconfig from the control-plane
node NODE with the system ssh (your ~/.ssh/config, agent and known_hosts apply;
host keys are checked as ssh checks them, -o BatchMode=yes without a terminal),
and writes it to the stack's kubeconfig: path (mode 0600, folder 0700, a temp
file renamed). NODE is looked up in the topology's nodes: (address) and in the
Ansible YAML inventory (inventory: or --inventory: ansible_host, ansible_user,
ansible_port, ansible_ssh_private_key_file, ansible_ssh_common_args,
ansible_ssh_extra_args, ansible_become, group vars merged as Ansible does).
sudo -n is used unless the user is root. A loopback server URL (k3s, RKE2) is
rewritten to the node's address. A different kubeconfig already there is shown
(endpoint, context, names — never a secret) and replaced only when you confirm;
--no-input never replaces it. Then the target is read (endpoint + nodes) to
prove access. Nothing is ever written to the cluster.

Exit codes: 0 done, 1 error, refused or not confirmed.`,
		Example: `  nestor discover                       # report of the active stack's cluster
  nestor discover -o yaml > draft.yaml  # a topology draft
  nestor discover --cp dirqual1         # fetch /etc/kubernetes/admin.conf from dirqual1
  nestor discover --cp k3s1 --remote-path /etc/rancher/k3s/k3s.yaml --user ubuntu`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.cp != "" {
				return a.runDiscoverCP(cmd, g, o)
			}
			for _, f := range []string{"inventory", "remote-path", "user", "port", "identity"} {
				if cmd.Flags().Changed(f) {
					return fmt.Errorf("--%s is for fetching a kubeconfig: use it with --cp NODE", f)
				}
			}
			return a.runDiscover(cmd.Context(), g, o)
		},
	}
	addStackFlags(a, cmd, &o.stack)
	o.output.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "stack name of the -o yaml draft (default: the stack's)")
	f.StringVar(&o.cp, "cp", "", "fetch the admin kubeconfig from control-plane node NODE over ssh")
	_ = cmd.RegisterFlagCompletionFunc("cp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		t, err := a.loadStack(g, &o.stack)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, n := range t.ControlPlanes() {
			names = append(names, n.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	f.StringVar(&o.fetch.inventory, "inventory", "", "Ansible YAML inventory (default: the topology's inventory:)")
	f.StringVar(&o.fetch.remotePath, "remote-path", "", "kubeconfig path on the node (default "+probes.DefaultRemotePath+"; k3s: /etc/rancher/k3s/k3s.yaml, RKE2: /etc/rancher/rke2/rke2.yaml)")
	f.StringVar(&o.fetch.user, "user", "", "ssh user (default: ansible_user, else the node's user:, else ssh's)")
	f.IntVar(&o.fetch.port, "port", 0, "ssh port (default: ansible_port, else the node's port:, else ssh's)")
	f.StringVar(&o.fetch.identity, "identity", "", "ssh private key (default: ansible_ssh_private_key_file, else the node's key:)")
	return cmd
}

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
	// NotFound are declared layers the cluster does not show (absent) or
	// that could not be judged (unknown, with the reason).
	NotFound []topology.LayerState `json:"not_found"`
}

// stackName is the topology name rule (DESIGN.md: [a-z0-9-]).
var stackName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

func (a *App) runDiscover(ctx context.Context, g *globals, o *discoverOptions) error {
	if o.output.value == "json" {
		g.noInput = true // JSON output implies no prompt (as preview)
	}
	t, err := a.loadStack(g, &o.stack)
	if err != nil {
		return err
	}
	if o.name != "" && o.output.value != "yaml" {
		return errors.New("--name names the -o yaml draft: use it with -o yaml")
	}
	r, err := a.discover(ctx, g, t)
	if err != nil {
		return err
	}
	switch o.output.value {
	case "json":
		enc := json.NewEncoder(a.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "yaml":
		name := o.name
		if name == "" {
			name = t.Name
		}
		if !stackName.MatchString(name) {
			return fmt.Errorf("--name %q is not a stack name: use [a-z0-9-], starting with a letter or digit", name)
		}
		draft := draftTopology(t, r, name, a.home())
		if _, err := topology.Parse(filepath.Join(filepath.Dir(t.Path), name+".yaml"), draft); err != nil {
			return fmt.Errorf("the draft does not validate (a nestor bug, please report it): %w", err)
		}
		_, err := a.Out.Write(draft)
		return err
	}
	renderDiscover(a.Out, t, r, a.suggest)
	return nil
}

// discover reads t's target as preview does (a.observe: the kubeconfig
// rules, the guard, then every read — all at once without a prompt) and
// keeps the raw facts for the report. A lima stack is read through its bench
// kubeconfig only, without the guard and without limactl (discover reports
// the cluster, not the VMs).
func (a *App) discover(ctx context.Context, g *globals, t *topology.Topology) (*DiscoverReport, error) {
	var (
		target *probes.Target
		check  endpointCheck
		obs    *topology.Observed
		facts  topology.ClusterFacts
	)
	switch t.TargetKind {
	case topology.TargetProd:
		ob, err := a.observe(ctx, g, t)
		if err != nil {
			return nil, err
		}
		if ob.obs.NoTarget {
			return nil, fmt.Errorf("nothing to discover: %s", ob.obs.NoTargetReason)
		}
		target, check, obs, facts = ob.target, ob.check, ob.obs, ob.facts
	case topology.TargetLima:
		kc, err := probes.ResolveKubeconfig(probes.ResolveOptions{Flag: g.kubeconfig, Env: a.Env, Home: a.home(), Topology: t})
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(kc.Paths[0]); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("there is no bench kubeconfig at %s for stack %s (the bench cluster has not been bootstrapped, or lima.kubeconfig: names another file; see `%s`)", kc.Paths[0], t.Name, a.suggest("next"))
		}
		if target, err = probes.LoadTargetWith(kc, probes.LoadOptions{
			Context: g.context, UserAgent: UserAgent(), Interactive: a.interactive(g),
			Kube: probes.KubeOptions{Timeout: g.timeout},
		}); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		obs, facts = probes.ProbeTarget(rctx, target, t)
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		if !obs.ServerVersion.Known && !obs.Nodes.Known {
			return nil, fmt.Errorf("cannot read the bench %s (kubeconfig %s): %s", target.Endpoint, kc.Paths[0], obs.ServerVersion.Reason)
		}
	default:
		return nil, fmt.Errorf("%s: unknown target_kind %q", t.Path, t.TargetKind)
	}

	r := &DiscoverReport{
		FormatVersion:  DiscoverFormatVersion,
		Stack:          StackInfo{Name: t.Name, File: t.Path, TargetKind: t.TargetKind},
		Target:         targetInfo(t, target, check),
		ServerVersion:  obs.ServerVersion,
		Nodes:          obs.Nodes,
		Namespaces:     facts.Namespaces,
		StorageClasses: facts.StorageClasses,
		DefaultStorage: obs.Storage,
		CRDGroups:      facts.CRDGroups,
		Layers:         []topology.LayerState{},
		NotFound:       []topology.LayerState{},
	}
	for _, l := range obs.Layers {
		// An undeclared catalog layer is only listed when a specific sign
		// of it was seen (topology.Undeclared), whatever its health.
		if !l.Declared || l.Health == topology.Healthy || l.Health == topology.Degraded {
			r.Layers = append(r.Layers, l)
		} else {
			r.NotFound = append(r.NotFound, l)
		}
	}
	return r, nil
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

func targetInfo(t *topology.Topology, target *probes.Target, check endpointCheck) *TargetInfo {
	ti := &TargetInfo{
		Endpoint: target.Endpoint, Context: target.Context,
		Kubeconfig: target.Kubeconfig.Paths, Source: string(target.Kubeconfig.Source),
		SourceDetail: target.Kubeconfig.Detail, DeclaredEndpoint: t.Endpoint,
	}
	if t.Endpoint != "" && check.err == nil && check.declared != "" {
		m := check.matches
		ti.EndpointMatches = &m
	}
	return ti
}

func renderDiscover(w io.Writer, t *topology.Topology, r *DiscoverReport, suggest func(string) string) {
	fmt.Fprintf(w, "Stack %s (%s) — read now from %s (context %s, kubeconfig %s); nothing was written.\n\n",
		t.Name, t.TargetKind, r.Target.Endpoint, r.Target.Context, strings.Join(r.Target.Kubeconfig, ":"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	unknown := func(reason string) string { return "unknown (" + reason + ")" }
	if r.ServerVersion.Known {
		fmt.Fprintf(tw, "SERVER\t%s\n", r.ServerVersion.Value)
	} else {
		fmt.Fprintf(tw, "SERVER\t%s\n", unknown(r.ServerVersion.Reason))
	}
	tw.Flush()
	if r.Nodes.Known {
		ready := 0
		for _, n := range r.Nodes.Value {
			if n.Ready {
				ready++
			}
		}
		fmt.Fprintf(w, "\nNODES (%d, %d Ready)\n", len(r.Nodes.Value), ready)
		fmt.Fprintln(tw, "  NAME\tROLES\tREADY\tVERSION\tINTERNAL-IP")
		for _, n := range r.Nodes.Value {
			roles := strings.Join(n.Roles, ",")
			if roles == "" {
				roles = "<none>"
			}
			ready := "True"
			if !n.Ready {
				ready = "False"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", n.Name, roles, ready, orNone(n.KubeletVersion), orNone(n.InternalIP))
		}
		tw.Flush()
	} else {
		fmt.Fprintf(w, "\nNODES %s\n", unknown(r.Nodes.Reason))
	}
	if r.Namespaces.Known {
		fmt.Fprintf(w, "\nNAMESPACES (%d)\n  %s\n", len(r.Namespaces.Value), strings.Join(r.Namespaces.Value, ", "))
	} else {
		fmt.Fprintf(w, "\nNAMESPACES %s\n", unknown(r.Namespaces.Reason))
	}
	if r.StorageClasses.Known {
		fmt.Fprintf(w, "\nSTORAGECLASSES (%d)\n", len(r.StorageClasses.Value))
		if len(r.StorageClasses.Value) > 0 {
			fmt.Fprintln(tw, "  NAME\tPROVISIONER\tDEFAULT\tBACKEND")
			for _, sc := range r.StorageClasses.Value {
				def := ""
				if sc.Default {
					def = "(default)"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", sc.Name, sc.Provisioner, def, orNone(topology.BackendForProvisioner(sc.Provisioner)))
			}
			tw.Flush()
		}
		if r.DefaultStorage.Known && r.DefaultStorage.Value.Class == "" {
			fmt.Fprintln(w, "  no default StorageClass")
		}
		if r.DefaultStorage.Known && len(r.DefaultStorage.Value.OtherDefaults) > 0 {
			fmt.Fprintf(w, "  WARNING %s\n", r.DefaultStorage.Value.Warning)
		}
	} else {
		fmt.Fprintf(w, "\nSTORAGECLASSES %s\n", unknown(r.StorageClasses.Reason))
	}
	if r.CRDGroups.Known {
		fmt.Fprintf(w, "\nCRD GROUPS (%d)\n", len(r.CRDGroups.Value))
		if len(r.CRDGroups.Value) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(r.CRDGroups.Value, ", "))
		}
	} else {
		fmt.Fprintf(w, "\nCRD GROUPS %s\n", unknown(r.CRDGroups.Reason))
	}
	fmt.Fprintf(w, "\nLAYERS DETECTED (%d)\n", len(r.Layers))
	for _, l := range r.Layers {
		decl := "not declared"
		if l.Declared {
			decl = "declared"
		}
		reason := ""
		if l.Reason != "" {
			reason = "  " + l.Reason
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", l.Name, l.Health, decl, reason)
	}
	tw.Flush()
	for _, l := range r.NotFound {
		fmt.Fprintf(w, "  declared %s: %s (%s)\n", l.Name, l.Health, l.Reason)
	}
	if undetectable := undeclaredBlindSpots(t); len(undetectable) > 0 {
		fmt.Fprintf(w, "  (these install no CRD or StorageClass, so undeclared they are found only when their namespace is read for a declared layer: %s)\n", strings.Join(undetectable, ", "))
	}
	fmt.Fprintf(w, "\nA topology draft of this cluster: %s\n", suggest("discover -o yaml"))
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
	fmt.Fprintf(&b, "# read (read-only) on %s. Review it, then save it as %s.yaml in the stacks folder.\n", time.Now().UTC().Format("2006-01-02"), name)
	fmt.Fprintf(&b, "name: %s\n", yamlScalar(name))
	fmt.Fprintf(&b, "target_kind: %s\n", t.TargetKind)
	if t.TargetKind == topology.TargetProd {
		switch {
		case t.Kubeconfig != "":
			fmt.Fprintf(&b, "kubeconfig: %s\n", yamlScalar(absIfRelative(t, t.Kubeconfig)))
		case r.Target.Source == string(probes.SourceFlag) && len(r.Target.Kubeconfig) == 1:
			fmt.Fprintf(&b, "kubeconfig: %s\n", yamlScalar(r.Target.Kubeconfig[0]))
		default:
			fmt.Fprintf(&b, "# kubeconfig: read through %s; declare the stack's own file here\n", r.Target.SourceDetail)
		}
		fmt.Fprintf(&b, "endpoint: %s\n", yamlScalar(r.Target.Endpoint))
	}
	if r.ServerVersion.Known {
		if minor := minorOf(r.ServerVersion.Value); minor != "" {
			fmt.Fprintf(&b, "kubernetes:\n  version: %s\n", yamlScalar(minor))
		}
	} else {
		fmt.Fprintf(&b, "# kubernetes.version: server version unknown (%s)\n", r.ServerVersion.Reason)
	}
	if t.Inventory != "" {
		fmt.Fprintf(&b, "inventory: %s\n", yamlScalar(absIfRelative(t, t.Inventory)))
	}
	if r.Nodes.Known {
		if len(r.Nodes.Value) == 0 {
			b.WriteString("nodes: []\n")
		} else {
			b.WriteString("nodes:\n")
		}
		for _, n := range r.Nodes.Value {
			role := topology.RoleWorker
			if slices.ContainsFunc(n.Roles, topology.IsControlPlaneRole) {
				role = topology.RoleControlPlane
			}
			fmt.Fprintf(&b, "  - {name: %s, role: %s", yamlScalar(n.Name), role)
			if n.InternalIP != "" {
				fmt.Fprintf(&b, ", address: %s", yamlScalar(n.InternalIP))
			}
			b.WriteString("}\n")
		}
	} else {
		fmt.Fprintf(&b, "# nodes: unknown (%s)\n", r.Nodes.Reason)
	}
	if t.TargetKind == topology.TargetLima && t.Lima != nil {
		b.WriteString("lima:\n")
		for _, kv := range [][2]string{{"template", t.Lima.Template}, {"memory", t.Lima.Memory}, {"disk", t.Lima.Disk}, {"kubeconfig", t.Lima.Kubeconfig}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "  %s: %s\n", kv[0], yamlScalar(kv[1]))
			}
		}
		if t.Lima.CPUs != 0 {
			fmt.Fprintf(&b, "  cpus: %d\n", t.Lima.CPUs)
		}
	}

	layers := draftLayers(t, r)
	present := map[string]bool{}
	for _, l := range layers {
		present[l.Name] = true
	}
	if w := r.DefaultStorage.Value.Warning; w != "" {
		fmt.Fprintf(&b, "# backend: %s\n", w)
	}
	switch ds := r.DefaultStorage; {
	case !ds.Known:
		fmt.Fprintf(&b, "# backend: default StorageClass unknown (%s)\n", ds.Reason)
	case ds.Value.Class == "":
		b.WriteString("# backend: the cluster has no default StorageClass\n")
	case ds.Value.Backend == "":
		fmt.Fprintf(&b, "# backend: the default StorageClass %s uses %s, which is not in the layer catalog\n", ds.Value.Class, ds.Value.Provisioner)
	case !present[ds.Value.Backend]:
		fmt.Fprintf(&b, "# backend: %s (default StorageClass %s), but that layer was not detected as installed\n", ds.Value.Backend, ds.Value.Class)
	default:
		backend := ds.Value.Backend
		if bl, ok := topology.BackendLayer(t.Backend); ok && bl == backend {
			backend = t.Backend
		}
		fmt.Fprintf(&b, "backend: %s\n", yamlScalar(backend))
	}
	if len(layers) == 0 {
		b.WriteString("layers: []\n")
	} else {
		b.WriteString("layers:\n")
	}
	for _, l := range layers {
		if l.Detect == nil {
			fmt.Fprintf(&b, "  - %s\n", yamlScalar(l.Name))
			continue
		}
		fmt.Fprintf(&b, "  - name: %s\n    detect: {", yamlScalar(l.Name))
		var parts []string
		for _, kv := range [][2]string{{"deployment", l.Detect.Deployment}, {"daemonset", l.Detect.DaemonSet}, {"statefulset", l.Detect.StatefulSet}, {"namespace", l.Detect.Namespace}, {"crd_group", l.Detect.CRDGroup}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+": "+yamlScalar(kv[1]))
			}
		}
		b.WriteString(strings.Join(parts, ", ") + "}\n")
	}
	for _, l := range r.NotFound {
		fmt.Fprintf(&b, "# %s (declared in %s): %s — %s\n", l.Name, filepath.Base(t.Path), l.Health, l.Reason)
	}
	return b.Bytes()
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

// minorOf returns "1.37" of "v1.37.2+k3s1" ("" when it is not a version).
func minorOf(v string) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 || parts[0] == "" {
		return ""
	}
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	if minor == "" {
		return ""
	}
	return parts[0] + "." + minor
}

// yamlScalar writes s as a YAML scalar that reads back as the string s.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// ---------------------------------------------------------------------------
// discover --cp NODE

func (a *App) runDiscoverCP(cmd *cobra.Command, g *globals, o *discoverOptions) error {
	if o.output.value != "text" {
		return errors.New("-o is for the report of discover; --cp writes a kubeconfig and prints no report")
	}
	if o.name != "" {
		return errors.New("--name names the -o yaml draft; it does not apply to --cp")
	}
	t, err := a.loadStack(g, &o.stack)
	if err != nil {
		return err
	}
	if t.TargetKind != topology.TargetProd {
		return fmt.Errorf("stack %s is %s: its kubeconfig is the bench's own (%s), never fetched; --cp is for prod stacks", t.Name, t.TargetKind, t.BenchKubeconfig(a.home()))
	}
	return a.fetchKubeconfig(cmd.Context(), g, t, o.cp, o.fetch)
}

// fetchKubeconfig copies the admin kubeconfig of control-plane node `node`
// of the prod stack t over ssh (probes.FetchAdminConf), writes it to the
// stack's kubeconfig path, then proves access through the guard. It is
// `discover --cp NODE`, and what `stack select` runs when the operator
// accepts to fetch. Steps and refusals:
//
//   - the path: t's kubeconfig: resolved, else --kubeconfig; both set and
//     different, or none, is an error saying what to declare;
//   - the node: t's nodes (address, user, port, key) and the inventory
//     (--inventory, else t's inventory:); flags beat the inventory, which
//     beats the topology; a node known to neither is an error listing both;
//   - non-interactive: a fetched server that differs from t's endpoint: is
//     refused before anything is written; an existing different file is
//     never replaced (exit 1, saying why); interactive: the difference is
//     shown (endpoint, context, names) and the replacement confirmed;
//   - the write: folder created 0700, file 0600 through a temp file renamed;
//     an identical file is left as is ("unchanged");
//   - the proof: the target loaded from the written file goes through the
//     guard (printed, and confirmed when interactive).
//
// Nothing of the file's content is printed.
func (a *App) fetchKubeconfig(ctx context.Context, g *globals, t *topology.Topology, node string, o fetchOptions) error {
	interactive := a.interactive(g)
	dest, kc, err := a.fetchDestination(g, t)
	if err != nil {
		return err
	}
	if t.Endpoint == "" && !interactive {
		return fmt.Errorf("nothing fetched: --no-input checks a fetched kubeconfig against the topology's endpoint:, and %s declares none; "+
			"add `endpoint: https://ADDRESS:6443` (this stack's API server) after target_kind:, or run in a terminal to review the fetched one", t.Path)
	}
	fo, notes, err := a.fetchTarget(t, node, o, interactive)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(a.ErrOut, "Note: %s\n", n)
	}
	args, err := probes.SSHArgs(fo)
	if err != nil {
		return err
	}
	remote := fo.RemotePath
	if remote == "" {
		remote = probes.DefaultRemotePath
	}
	fmt.Fprintf(a.ErrOut, "Fetching %s from %s: ssh %s\n", remote, node, strings.Join(args, " "))
	sctx := ctx
	if !interactive {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	ac, err := probes.FetchAdminConf(sctx, a.Run, fo)
	if err != nil {
		return fmt.Errorf("nothing written: %w", err)
	}
	fmt.Fprintf(a.ErrOut, "Fetched a kubeconfig: context %s, cluster %s, user %s, server %s.\n", ac.Context, ac.Cluster, ac.User, ac.Server)
	if ac.RewrittenFrom != "" {
		fmt.Fprintf(a.ErrOut, "Rewrote its server %s (a loopback address of the node) to %s, the node's address.\n", ac.RewrittenFrom, ac.Server)
	}
	if t.Endpoint != "" {
		same, err := probes.SameEndpoint(ac.Server, t.Endpoint)
		switch {
		case err != nil:
			return fmt.Errorf("nothing written: cannot compare the fetched server with endpoint: of %s: %v", t.Path, err)
		case !same && !interactive:
			return fmt.Errorf("nothing written: the kubeconfig from %s points at %s, but %s declares endpoint: %s; "+
				"--no-input writes only a kubeconfig of the declared endpoint (fix endpoint:, or run in a terminal to review it)", node, ac.Server, t.Path, t.Endpoint)
		case !same:
			fmt.Fprintf(a.ErrOut, "WARNING: the fetched server %s is not the endpoint: %s declared in %s.\n", ac.Server, t.Endpoint, t.Path)
			ok, err := a.Prompter.Confirm(fmt.Sprintf("Write this kubeconfig of %s for stack %s anyway?", ac.Server, t.Name), false)
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintln(a.ErrOut, "Nothing written.")
				return errSilent{code: ExitError}
			}
		}
	} else {
		fmt.Fprintf(a.ErrOut, "WARNING: %s declares no endpoint:, so nestor cannot check that %s is this stack's API server.\n", t.Path, ac.Server)
	}

	old, err := os.ReadFile(dest)
	switch {
	case err == nil && bytes.Equal(old, ac.Data):
		fmt.Fprintf(a.ErrOut, "%s unchanged: it already holds this kubeconfig.\n", dest)
	case err == nil:
		diff := describeKubeconfigChange(old, ac)
		if !interactive {
			return fmt.Errorf("not replaced: %s already exists and differs from the kubeconfig of %s:\n%s\n--no-input never replaces an existing kubeconfig: review it in a terminal (nestor discover --cp %s), or move it away first",
				dest, node, diff, node)
		}
		fmt.Fprintf(a.ErrOut, "%s already exists and differs from the kubeconfig of %s:\n%s\n", dest, node, diff)
		ok, err := a.Prompter.Confirm(fmt.Sprintf("Replace %s?", dest), false)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(a.ErrOut, "Not replaced: %s is unchanged.\n", dest)
			return errSilent{code: ExitError}
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
			return fmt.Errorf("nothing written: %v", err)
		}
		if err := writeFileAtomic(dest, ac.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %v", dest, err)
		}
		fmt.Fprintf(a.ErrOut, "Wrote %s (mode 0600).\n", dest)
	default:
		return fmt.Errorf("nothing written: cannot read the existing %s: %v", dest, err)
	}
	if g.kubeconfig == "" {
		if v, ok := a.Env("KUBECONFIG"); ok && strings.Trim(v, string(filepath.ListSeparator)) != "" {
			fmt.Fprintf(a.ErrOut, "Note: KUBECONFIG is exported (%s): other nestor commands read it before the topology's kubeconfig:; unset it to use %s.\n", v, dest)
		}
	}

	target, err := probes.LoadTargetWith(kc, probes.LoadOptions{
		Context: g.context, UserAgent: UserAgent(), Interactive: interactive,
		Kube: probes.KubeOptions{Timeout: g.timeout},
	})
	if err != nil {
		return fmt.Errorf("wrote %s, but cannot load it: %w", dest, err)
	}
	gd, err := a.guard(ctx, g, t, target, dest)
	if err != nil {
		var s errSilent
		if errors.As(err, &s) {
			fmt.Fprintf(a.ErrOut, "%s stays written; access was not confirmed as stack %s.\n", dest, t.Name)
			return err
		}
		return fmt.Errorf("wrote %s, but access is not proven: %w", dest, err)
	}
	if !interactive {
		a.printTarget(a.ErrOut, t, target, gd)
	}
	if !gd.nodes.Known {
		fmt.Fprintf(a.ErrOut, "Access partly proven: %s answers, but its nodes could not be read (%s). Next: %s\n",
			target.Endpoint, gd.nodes.Reason, a.suggest("preview"))
		return nil
	}
	fmt.Fprintf(a.ErrOut, "Access proven: %s answers with %d node(s). Next: %s\n", target.Endpoint, len(gd.nodes.Value), a.suggest("preview"))
	return nil
}

// fetchDestination returns where discover --cp writes: t's kubeconfig:
// resolved, else --kubeconfig, and the Kubeconfig to load it back with.
func (a *App) fetchDestination(g *globals, t *topology.Topology) (string, probes.Kubeconfig, error) {
	home := a.home()
	var dest string
	kc := probes.Kubeconfig{Source: probes.SourceTopology, Detail: "kubeconfig: in " + t.Path}
	if t.Kubeconfig != "" {
		dest = t.ResolvePath(t.Kubeconfig, home)
		if strings.HasPrefix(dest, "~") {
			return "", kc, fmt.Errorf("cannot expand %s (kubeconfig: in %s): HOME is not set", t.Kubeconfig, t.Path)
		}
	}
	if g.kubeconfig != "" {
		flag, err := probes.ResolveKubeconfig(probes.ResolveOptions{Flag: g.kubeconfig, Home: home})
		if err != nil {
			return "", kc, err
		}
		switch {
		case dest == "":
			dest = flag.Paths[0]
			kc = flag
		case filepath.Clean(dest) != flag.Paths[0]:
			return "", kc, fmt.Errorf("--kubeconfig %s is not the stack's kubeconfig: %s (%s): discover --cp writes the stack's own file; drop --kubeconfig or change kubeconfig: in %s",
				flag.Paths[0], dest, t.Kubeconfig, t.Path)
		}
	}
	if dest == "" {
		return "", kc, fmt.Errorf("stack %s declares no kubeconfig:, so there is nowhere to write the fetched one: add this line after target_kind: in %s (`nestor stack select %s` offers it)\n  kubeconfig: ~/.kube/%s.config\nor pass --kubeconfig PATH",
			t.Name, t.Path, t.Name, t.Name)
	}
	kc.Paths = []string{dest}
	return dest, kc, nil
}

// fetchTarget finds node in t's nodes and in the inventory and returns the
// ssh settings: flags, then the inventory, then the topology's node.
func (a *App) fetchTarget(t *topology.Topology, node string, o fetchOptions, interactive bool) (probes.FetchOptions, []string, error) {
	home := a.home()
	fo := probes.FetchOptions{Node: node, RemotePath: o.remotePath, Interactive: interactive}
	var notes []string
	tn, inTopo := t.Node(node)

	invPath := ""
	switch {
	case o.inventory != "":
		p, err := expandHome(o.inventory, home)
		if err != nil {
			return fo, nil, fmt.Errorf("--inventory: %v", err)
		}
		invPath = p
	case t.Inventory != "":
		invPath = t.ResolvePath(t.Inventory, home)
	}
	var hv probes.HostVars
	inInv := false
	if invPath != "" {
		var err error
		hv, err = probes.InventoryHost(invPath, node)
		var uh *probes.UnknownHostError
		switch {
		case err == nil:
			inInv = true
		case errors.As(err, &uh) && inTopo:
			notes = append(notes, fmt.Sprintf("%s; using the topology's node %s", err, node))
		case errors.As(err, &uh):
			return fo, nil, fmt.Errorf("unknown node %s: %s has no node %q (nodes: %s), and %v", node, t.Path, node, nodeNames(t), err)
		default:
			return fo, nil, err
		}
		notes = append(notes, hv.Notes...)
	} else if !inTopo {
		return fo, nil, fmt.Errorf("unknown node %s: %s has no node %q (nodes: %s) and names no inventory: (or pass --inventory FILE)", node, t.Path, node, nodeNames(t))
	}

	fo.Host = firstNonEmpty(hv.Host, tn.Address, node)
	fo.Address = firstNonEmpty(tn.Address, hv.Host)
	fo.User = firstNonEmpty(o.user, hv.User, tn.User)
	fo.Port = o.port
	if fo.Port == 0 {
		fo.Port = hv.Port
	}
	if fo.Port == 0 {
		fo.Port = tn.Port
	}
	switch {
	case o.identity != "":
		p, err := expandHome(o.identity, home)
		if err != nil {
			return fo, nil, fmt.Errorf("--identity: %v", err)
		}
		fo.IdentityFile = p
	case hv.PrivateKeyFile != "":
		p, err := expandHome(hv.PrivateKeyFile, home)
		if err != nil {
			return fo, nil, fmt.Errorf("inventory %s: ansible_ssh_private_key_file: %v", invPath, err)
		}
		fo.IdentityFile = p
	case tn.Key != "":
		fo.IdentityFile = t.ResolvePath(tn.Key, home)
	}
	if inInv {
		fo.CommonArgs, fo.ExtraArgs, fo.Become = hv.SSHCommonArgs, hv.SSHExtraArgs, hv.Become
	}
	return fo, notes, nil
}

func nodeNames(t *topology.Topology) string {
	if len(t.Nodes) == 0 {
		return "none"
	}
	names := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// expandHome expands a leading ~ or ~/ with home and makes p absolute.
func expandHome(p, home string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", fmt.Errorf("cannot expand %s: HOME is not set", p)
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return filepath.Abs(p)
}

// describeKubeconfigChange says how the kubeconfig already on disk differs
// from the fetched one: server, context, cluster and user names — never a
// credential. When only credentials differ, it says so.
func describeKubeconfigChange(old []byte, ac *probes.AdminConf) string {
	s, err := probes.SummarizeKubeconfig(old)
	if err != nil {
		return fmt.Sprintf("  the existing file is not a usable kubeconfig (%v); the new one: server %s, context %s", err, ac.Server, ac.Context)
	}
	var lines []string
	for _, f := range []struct{ name, old, new string }{
		{"server", s.Server, ac.Server},
		{"context", s.Context, ac.Context},
		{"cluster", s.Cluster, ac.Cluster},
		{"user", s.User, ac.User},
	} {
		if f.old != f.new {
			lines = append(lines, fmt.Sprintf("  %-8s %s → %s", f.name, orNone(f.old), orNone(f.new)))
		} else {
			lines = append(lines, fmt.Sprintf("  %-8s %s (same)", f.name, orNone(f.old)))
		}
	}
	if s.Server == ac.Server && s.Context == ac.Context && s.Cluster == ac.Cluster && s.User == ac.User {
		lines = append(lines, "  the names and server are the same: the credentials or other settings differ (not shown)")
	}
	return strings.Join(lines, "\n")
}
