package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/topology"
)

type nextOptions struct {
	stack  stackFlags
	output outputFlag
}

func newNextCmd(a *App, g *globals) *cobra.Command {
	o := &nextOptions{output: outputFlag{allowed: []string{"text", "json"}, value: "text"}}
	cmd := &cobra.Command{
		Use:   "next",
		Short: "Say which phase comes next for the stack, why, and what runs it (read-only)",
		Long: `next reads the stack's actual state (as preview does, read-only) and names the
first phase of its sequence that is not done, why, and what runs it (RUNBOOK.md's
phase table). Phases: lima: up → bootstrap → k8s → layers; prod: bootstrap → k8s →
layers (a prod stack never gets "up": its machines pre-exist).

When a phase cannot be judged because ACTUAL is unknown, next says so and that
the next step is to make the target readable, not to install anything.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runNext(cmd.Context(), g, o)
		},
	}
	addStackFlags(a, cmd, &o.stack)
	o.output.register(cmd)
	return cmd
}

// nextStep is next's answer.
type nextStep struct {
	// FormatVersion is the version of this JSON document.
	FormatVersion int    `json:"format_version"`
	Stack         string `json:"stack"`
	// Phase is the first phase not done; "" when every phase is done or
	// when Unknown is true.
	Phase   string `json:"phase,omitempty"`
	Done    bool   `json:"done"`
	Unknown bool   `json:"unknown"`
	Why     string `json:"why"`
	Run     string `json:"run,omitempty"`
}

func (a *App) runNext(ctx context.Context, g *globals, o *nextOptions) error {
	if o.output.value == "json" {
		g.noInput = true
	}
	t, err := a.loadStack(g, &o.stack)
	if err != nil {
		return err
	}
	ob, err := a.observe(ctx, g, t)
	if err != nil {
		return err
	}
	n := decideNext(t, ob.obs, a.suggest)
	if o.output.value == "json" {
		enc := json.NewEncoder(a.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(n)
	}
	switch {
	case n.Done:
		fmt.Fprintf(a.Out, "Stack %s: every phase is done (%s).\n", t.Name, n.Why)
	case n.Unknown:
		fmt.Fprintf(a.Out, "Stack %s: next phase unknown — %s\n", t.Name, n.Why)
		fmt.Fprintf(a.Out, "Next: %s\n", n.Run)
	default:
		fmt.Fprintf(a.Out, "Stack %s: next phase is %s — %s\n", t.Name, n.Phase, n.Why)
		fmt.Fprintf(a.Out, "Run:  %s\n", n.Run)
	}
	return nil
}

// decideNext walks the phases of t in order and returns the first one that
// obs does not show done. A phase whose evidence is unknown stops the walk
// with Unknown=true: nestor does not guess past what it could not read.
//
// suggest turns a nestor subcommand into the command line for this stack.
func decideNext(t *topology.Topology, obs *topology.Observed, suggest func(string) string) nextStep {
	n := nextStep{FormatVersion: 1, Stack: t.Name}
	if obs.NoTarget {
		n.Unknown = true
		n.Why = "nothing was read: " + obs.NoTargetReason
		n.Run = fmt.Sprintf("declare or fetch the target first: `nestor stack select %s`, or `%s`", t.Name, suggest("discover --cp "+firstControlPlane(t)))
		return n
	}
	layers := map[string]topology.LayerState{}
	for _, l := range obs.Layers {
		if l.Declared {
			layers[l.Name] = l
		}
	}
	// A phase whose own evidence looks done can still have plan steps
	// (a backend to migrate, an upgrade, a role to fix): next and preview
	// must never disagree, so the plan has the last word.
	stepOf := map[string]topology.Step{}
	for _, s := range topology.BuildPlan(t, obs, topology.PlanOptions{}).Steps {
		if _, seen := stepOf[s.Phase]; !seen && s.IsChange() {
			stepOf[s.Phase] = s
		}
	}
	for _, p := range topology.Phases(t) {
		done, unknown, why := phaseDone(t, obs, p, layers)
		if s, ok := stepOf[p.Name]; done && ok {
			done, why = false, fmt.Sprintf("%s %s: %s", s.Kind, s.Target, s.Reason)
		}
		if unknown {
			n.Unknown = true
			n.Why = fmt.Sprintf("cannot tell whether phase %s is done: %s", p.Name, why)
			n.Run = "make the target readable first (see the reason), then run `" + suggest("next") + "` again; do not install anything on a guess"
			return n
		}
		if !done {
			n.Phase = p.Name
			n.Why = why
			n.Run = phaseRunbook(t, p)
			return n
		}
	}
	n.Done = true
	n.Why = "VMs, nodes and layers match the topology"
	if t.TargetKind == topology.TargetProd {
		n.Why = "nodes and layers match the topology"
	}
	return n
}

// phaseDone judges one phase from the observation.
func phaseDone(t *topology.Topology, obs *topology.Observed, p topology.Phase, layers map[string]topology.LayerState) (done, unknown bool, why string) {
	switch p.Kind {
	case "up":
		if obs.VMs == nil || !obs.VMs.Known {
			reason := "limactl was not read"
			if obs.VMs != nil {
				reason = obs.VMs.Reason
			}
			return false, true, reason
		}
		status := map[string]string{}
		for _, vm := range obs.VMs.Value {
			status[vm.Name] = vm.Status
		}
		var missing []string
		for _, node := range t.Nodes {
			switch st, ok := status[node.Name]; {
			case !ok:
				missing = append(missing, node.Name+" (no VM)")
			case st != topology.VMRunning:
				missing = append(missing, node.Name+" ("+st+")")
			}
		}
		if len(missing) > 0 {
			return false, false, "VMs not running: " + strings.Join(missing, ", ")
		}
		return true, false, ""
	case "bootstrap":
		if obs.ServerVersion.Known {
			return true, false, ""
		}
		if obs.NoBenchCluster {
			return false, false, "no bench cluster was read: " + obs.Nodes.Reason
		}
		return false, true, obs.ServerVersion.Reason
	case "k8s":
		if !obs.Nodes.Known {
			return false, true, obs.Nodes.Reason
		}
		ready := map[string]bool{}
		for _, n := range obs.Nodes.Value {
			ready[n.Name] = n.Ready
		}
		var missing []string
		for _, node := range t.Nodes {
			r, ok := ready[node.Name]
			switch {
			case !ok:
				missing = append(missing, node.Name+" not registered")
			case !r:
				missing = append(missing, node.Name+" NotReady")
			}
		}
		if len(missing) > 0 {
			return false, false, strings.Join(missing, ", ")
		}
		return true, false, ""
	default:
		l, ok := layers[p.Layer]
		if !ok {
			return false, true, "layer " + p.Layer + " was not probed"
		}
		switch l.Health {
		case topology.Healthy:
			return true, false, ""
		case topology.Unknown:
			return false, true, l.Reason
		case topology.Degraded:
			return false, false, "layer " + l.Name + " is degraded: " + l.Reason
		default:
			return false, false, "layer " + l.Name + " is not installed"
		}
	}
}

// phaseRunbook says what runs phase p; it mirrors RUNBOOK.md's phase table.
func phaseRunbook(t *topology.Topology, p topology.Phase) string {
	switch p.Kind {
	case "up":
		return "RUNBOOK.md § up: `limactl start <node>` for each declared node (template " + limaTemplate(t) + ")"
	case "bootstrap":
		if t.TargetKind == topology.TargetLima {
			return "RUNBOOK.md § bootstrap: kubeadm init on the first control-plane VM, then `nestor env` to export the bench kubeconfig"
		}
		return "RUNBOOK.md § bootstrap: the upstream provisioning (Ansible bootstrap playbook) on the existing machines, then `nestor discover --cp " + firstControlPlane(t) + "`"
	case "k8s":
		return "RUNBOOK.md § k8s: join the missing nodes (kubeadm join), fix NotReady kubelets and node roles, upgrade to kubernetes.version (kubeadm upgrade), then `nestor preview`"
	default:
		if def, ok := topology.CatalogLayer(p.Layer); ok {
			return "RUNBOOK.md § layers: install or repair " + def.Name + " (" + def.Source + "), then `nestor preview`"
		}
		return "RUNBOOK.md § layers: install or repair the custom layer " + p.Layer + ", then `nestor preview`"
	}
}

func limaTemplate(t *topology.Topology) string {
	if t.Lima != nil && t.Lima.Template != "" {
		return t.Lima.Template
	}
	return "of the topology's lima: section"
}
