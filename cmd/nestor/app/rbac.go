package app

import (
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
)

func newRBACCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	var r action.RBAC
	out := newOutputFlag("text", reportFormats...)
	cmd := &cobra.Command{
		Use:   "rbac [NAME]",
		Short: "Print the read-only role a preview of the stack needs (reads nothing)",
		Long: `rbac prints the ClusterRole that exactly this stack's reads need — the nodes,
namespaces, CRDs and StorageClasses, the declared layers' workloads and their own
status resources, /version, and what an upgrade report reads when one is due
(discovery, /metrics, the kube-system identity leases, the PodDisruptionBudgets and
the names and nodes of the pods of those that allow no disruption) —
get and list only: never a write verb, never secrets. Each rule is preceded by a
comment saying what nestor reads it for. It reads nothing but the topology.

--namespaced puts the reads made in named namespaces (the declared layers'
workloads, the identity leases) in a Role of each namespace instead; a layer's
candidate namespace that does not exist makes kubectl apply fail for its Role:
delete that document. Undeclared layers found on the cluster are then read in
their namespaces without a grant: their health is unknown (forbidden).

--bind user:NAME (or group:NAME, serviceaccount:NAMESPACE:NAME) adds the bindings.
Without a grant of /metrics, the upgrade report says the deprecated-API calls are
unknown (forbidden), which a managed control plane often makes them anyway.

The text form is a YAML stream with the comments (kubectl apply -f takes it);
-o yaml and -o json print the same objects as a v1 List.`,
		Example: `  nestor rbac dirqual
  nestor rbac dirqual --bind user:preview-bot | kubectl apply -f -
  nestor rbac dirqual --namespaced -o json`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			r.Config, r.Selection = config(g, out), sel
			doc, err := r.Run()
			if err != nil {
				return err
			}
			return write(a.Out, out.value, doc, func(w io.Writer) error { return views.RBAC(w, doc) })
		},
	}
	addStackFlags(a, g, cmd, &sel)
	out.register(cmd)
	cmd.Flags().StringVar(&r.Name, "name", "", "name of the roles and bindings (default nestor-preview-STACK)")
	cmd.Flags().BoolVar(&r.Namespaced, "namespaced", false, "put the reads made in named namespaces in a Role of each")
	cmd.Flags().StringVar(&r.Subject, "bind", "", "also print the bindings to user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME")
	_ = cmd.RegisterFlagCompletionFunc("bind", cobra.FixedCompletions([]string{"user:", "group:", "serviceaccount:"}, cobra.ShellCompDirectiveNoSpace|cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
