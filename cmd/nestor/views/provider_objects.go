package views

import (
	"fmt"
	"io"
	"strings"

	"nestor.dev/nestor/topology"
)

// yoursShown is how many objects of yours ACTUAL names without --detailed
// (-o json lists them all).
const yoursShown = 8

// renderProviderObjects draws ACTUAL's line of a managed provider's
// namespace (kube-system), from the counts Derive made of the lists read:
// how many objects carry the provider's marks (and of them how many were
// edited after its write, how many could not be judged), how many only
// Kubernetes' control plane wrote, and the objects without the marks,
// yours, named (all of them with detailed); then each list not read, once
// per reason. Nothing when po is nil (not read: the kind has no provider
// objects, or the cluster's own API was not read).
func renderProviderObjects(w io.Writer, po *topology.ProviderObjects, p palette, detailed bool, once *saidOnce) {
	if po == nil {
		return
	}
	m, c := po.Marks, po.Counts
	var parts, yours []string
	read := 0
	for _, l := range po.Lists {
		if !l.Objects.Known {
			continue
		}
		read++
		for _, o := range l.Objects.Value {
			if o.Owner == topology.OwnerYours {
				yours = append(yours, o.Kind+" "+o.Name)
			}
		}
	}
	if read > 0 {
		about := []string{"marked"}
		if c.Edited > 0 {
			about = append(about, p.yellow(fmt.Sprintf("%d edited", c.Edited)))
		}
		if c.Unjudged > 0 {
			about = append(about, p.yellow(fmt.Sprintf("%d not judged", c.Unjudged)))
		}
		parts = append(parts, fmt.Sprintf("%d %s's (%s)", c.Provider, m.Provider, strings.Join(about, "; ")), fmt.Sprintf("%d Kubernetes' own", c.Kubernetes))
		mine := fmt.Sprintf("%d yours (not marked)", c.Yours)
		if len(yours) > 0 {
			shown := yours
			if !detailed && len(shown) > yoursShown {
				shown = append(shown[:yoursShown:yoursShown], fmt.Sprintf("and %d more", len(yours)-yoursShown))
			}
			mine += ": " + strings.Join(shown, ", ")
		}
		parts = append(parts, mine)
		n := c.Provider + c.Kubernetes + c.Yours
		line := fmt.Sprintf("%d object%s: %s", n, map[bool]string{true: "", false: "s"}[n == 1], strings.Join(parts, ", "))
		if !c.Complete {
			line += p.dim("  (of the lists read)")
		}
		fmt.Fprintf(w, "  %-11s %s\n", m.Namespace, line)
	}
	var order []topology.Why
	unread := map[topology.Why][]string{}
	for _, l := range po.Lists {
		if l.Objects.Known {
			continue
		}
		why := l.Objects.Why()
		if _, ok := unread[why]; !ok {
			order = append(order, why)
		}
		unread[why] = append(unread[why], l.Resource)
	}
	for i, why := range order {
		label := ""
		if i == 0 && read == 0 {
			label = m.Namespace
		}
		what := strings.Join(unread[why], ", ")
		fmt.Fprintf(w, "  %-11s %s %s\n", label, what, once.unknown(what+" in "+m.Namespace, why))
	}
}
