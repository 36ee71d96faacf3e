package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
	"nestor.dev/nestor/probes/ssh"
)

// discoverFlags are discover's own flags.
type discoverFlags struct {
	sel      action.Selection
	fetch    action.FetchOptions
	name, cp string
	out      *outputFlag
}

func newDiscoverCmd(a *App, g *globals) *cobra.Command {
	o := &discoverFlags{out: newOutputFlag("text", reportFormats...)}
	sel, fo, out := &o.sel, &o.fetch, o.out
	cmd := &cobra.Command{
		Use:   "discover [NAME]",
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
Ansible inventory, YAML or INI (inventory: or --inventory; read by ansible-inventory
when it is installed, else by nestor: ansible_host, ansible_user,
ansible_port, ansible_ssh_private_key_file, ansible_ssh_common_args,
ansible_ssh_extra_args, ansible_become, group vars merged as Ansible does).
sudo -n is used unless the user is root. A loopback server URL (k3s, RKE2) is
rewritten to the node's address. A different kubeconfig already there is shown
(endpoint, context, names — never a secret) and replaced only when you confirm;
--no-input never replaces it. Then the target is read (endpoint + nodes) to
prove access. Nothing is ever written to the cluster.

Exit codes: 0 done, 1 error, refused or not confirmed.`,
		Example: `  nestor discover                       # report of the active stack's cluster
  nestor discover dirqual               # of stack dirqual (--stack dirqual)
  nestor discover -o yaml > draft.yaml  # a topology draft (nestor preview -f draft.yaml reads it)
  nestor discover --cp dirqual1         # fetch /etc/kubernetes/admin.conf from dirqual1
  nestor discover --cp k3s1 --remote-path /etc/rancher/k3s/k3s.yaml --user ubuntu`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(sel, args); err != nil {
				return err
			}
			return runDiscover(a, g, cmd, o)
		},
	}
	addStackFlags(a, g, cmd, sel)
	out.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "stack name of the -o yaml draft (default: the stack's)")
	f.StringVar(&o.cp, "cp", "", "fetch the admin kubeconfig from control-plane node NODE over ssh")
	_ = cmd.RegisterFlagCompletionFunc("cp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		s, err := completionConfig(a, g).LoadStack(*sel)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, n := range s.ControlPlanes() {
			names = append(names, n.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	f.StringVar(&fo.Inventory, "inventory", "", "Ansible inventory, YAML or INI (default: the topology's inventory:)")
	f.StringVar(&fo.RemotePath, "remote-path", "", "kubeconfig path on the node (default "+ssh.DefaultRemotePath+"; k3s: /etc/rancher/k3s/k3s.yaml, RKE2: /etc/rancher/rke2/rke2.yaml)")
	f.StringVar(&fo.User, "user", "", "ssh user (default: ansible_user, else the node's user:, else ssh's)")
	f.IntVar(&fo.Port, "port", 0, "ssh port (default: ansible_port, else the node's port:, else ssh's)")
	f.StringVar(&fo.Identity, "identity", "", "ssh private key (default: ansible_ssh_private_key_file, else the node's key:)")
	return cmd
}

// runDiscover is discover's run: --cp fetches a kubeconfig (action.Fetch);
// otherwise the report (action.Discover), or its -o yaml draft.
func runDiscover(a *App, g *globals, cmd *cobra.Command, o *discoverFlags) error {
	if o.cp != "" {
		if o.out.value != "text" {
			return errors.New("-o is for the report of discover; --cp writes a kubeconfig and prints no report")
		}
		if o.name != "" {
			return errors.New("--name names the -o yaml draft; it does not apply to --cp")
		}
		return action.Fetch{Config: g.cfg, Selection: o.sel, Node: o.cp, Options: o.fetch}.Run(cmd.Context())
	}
	for _, f := range []string{"inventory", "remote-path", "user", "port", "identity"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("--%s is for fetching a kubeconfig: use it with --cp NODE", f)
		}
	}
	if o.name != "" && o.out.value != "yaml" {
		return errors.New("--name names the -o yaml draft: use it with -o yaml")
	}
	c, progress := withProgress(a, config(g, o.out), o.out)
	r, s, err := action.Discover{Config: c, Selection: o.sel}.Run(cmd.Context())
	progress.done()
	if err != nil {
		return err
	}
	if o.out.value == "yaml" {
		draft, err := action.Draft(s, r, o.name, c.Home)
		if err != nil {
			return err
		}
		_, err = a.Out.Write(draft)
		return err
	}
	return write(a.Out, o.out.value, r, func(w io.Writer) error { views.Discover(w, r, s, a.color()); return nil })
}
