package views

import (
	"fmt"
	"io"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/probes"
)

// Target writes part of the guard's view v of the target (the whole of it
// for action.TargetWhole and action.TargetProven), in colour when color is
// true: the endpoint and how it compares with endpoint:, the context, the
// kubeconfig and its rule (action.TargetOffline); the server version and
// the nodes, or why they are unknown, those not Ready named with their
// condition (action.TargetRead); for a managed cluster, the cluster as its
// provider describes it.
func Target(w io.Writer, v probes.GuardView, part action.TargetPart, color bool) {
	p := newPalette(color)
	switch part {
	case action.TargetOffline:
		printTargetOffline(w, v, p)
	case action.TargetRead:
		printTargetRead(w, v, p)
	default:
		printTarget(w, v, p)
	}
}

// printTarget is the whole target: the part known offline and the part
// read, or a managed cluster as its provider describes it.
func printTarget(w io.Writer, v probes.GuardView, p palette) {
	if v.Provider != nil {
		printProviderTarget(w, v)
		return
	}
	printTargetOffline(w, v, p)
	printTargetRead(w, v, p)
}

// printTargetOffline is the part of the target known without a request:
// the endpoint, how it compares with the topology's endpoint: (a WARNING
// line, highlighted, when it does not match or cannot be checked), the
// context and the kubeconfig with where it came from.
func printTargetOffline(w io.Writer, v probes.GuardView, p palette) {
	t, target := v.Topology, v.Target
	warn := func(s string) { fmt.Fprintf(w, "  %s     %s\n", p.bold(p.red("WARNING")), p.bold(s)) }
	fmt.Fprintf(w, "Target of stack %s (%s):\n", t.Name, t.TargetKind)
	fmt.Fprintf(w, "  endpoint    %s\n", target.Endpoint)
	switch {
	case v.Check.Declared == "":
		warn(t.Path + " declares no endpoint: — nestor cannot check this is the right cluster")
	case v.Check.Err != nil:
		warn(fmt.Sprintf("endpoint: %v", v.Check.Err))
	case !v.Check.Matches:
		warn(fmt.Sprintf("endpoint MISMATCH: %s declares %s", t.Path, v.Check.Declared))
	default:
		fmt.Fprintf(w, "  matches     endpoint: %s declared in %s\n", v.Check.Declared, t.Path)
	}
	fmt.Fprintf(w, "  context     %s\n", target.Context)
	fmt.Fprintf(w, "  kubeconfig  %s (from %s)\n", strings.Join(target.Kubeconfig.Paths, ":"), probes.SourceText(target.Kubeconfig))
}

// printTargetRead is the part of the target the guard read: the server
// version and the nodes, those not Ready named with their condition.
func printTargetRead(w io.Writer, v probes.GuardView, p palette) {
	if v.Version.Known {
		fmt.Fprintf(w, "  server      %s\n", v.Version.Value)
	} else {
		fmt.Fprintf(w, "  server      %s\n", unknownText(p, v.Version.Reason))
	}
	if !v.Nodes.Known {
		fmt.Fprintf(w, "  nodes       %s\n", unknownText(p, v.Nodes.Reason))
		return
	}
	// "N seen, M Ready: " lists the Ready ones only; those not Ready have
	// their own line, with their condition.
	var ready, notReady []string
	for _, n := range v.Nodes.Value {
		if n.Ready {
			ready = append(ready, n.Name)
		} else {
			notReady = append(notReady, n.Name+" ("+n.ReadyText()+")")
		}
	}
	line := fmt.Sprintf("%d seen, %d Ready", len(v.Nodes.Value), len(ready))
	if len(ready) > 0 {
		line += ": " + abbreviate(ready, 12)
	}
	fmt.Fprintf(w, "  nodes       %s\n", line)
	if len(notReady) > 0 {
		fmt.Fprintf(w, "  not Ready   %s\n", p.yellow(abbreviate(notReady, 12)))
	}
}

// abbreviate joins names, keeping the first max and counting the rest.
func abbreviate(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(names[:max], ", "), len(names)-max)
}
