package views

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/topology"
)

// renderOffer adds the cluster's offer and its headroom to ACTUAL: the
// type, its plane and commitment, its limits (the region's /cluster-types)
// and the types the cluster may move to (its /available-types, without its
// own type: being listed is not a move); then each headroom figure of the
// plan's Headroom against its limit. Nothing when the cluster was not read.
func renderOffer(w io.Writer, r *action.Report, p palette) {
	k := r.Actual.Kapsule
	if k == nil || !k.Cluster.Known || k.Transient["cluster"] != "" {
		return
	}
	c := k.Cluster.Value
	ct := topology.ParseClusterType(c.Type)
	kind := ct.Plane()
	if !ct.Parsed {
		kind = "a type nestor does not know"
	}
	if c.CommitmentActive(r.Day()) {
		kind += "; commitment until " + c.CommitmentEndsAt.UTC().Format(time.DateOnly)
	}
	line := fmt.Sprintf("%s (%s)", cmp.Or(c.Type, "?"), kind)
	switch kt, ok := k.TypeInfo(c.Type); {
	case !k.Types.Known:
		line += ": limits " + unknownText(p, topology.OrNotRead(k.Types.Reason))
	case !ok:
		line += ": limits " + unknownText(p, "not in the region's cluster types")
	default:
		line += fmt.Sprintf(": max_nodes %d, max_etcd_size %s", kt.MaxNodes, topology.DecimalMB(kt.MaxEtcdSize))
	}
	if k.AvailableTypes.Known {
		line += "; may move to " + cmp.Or(strings.Join(k.MovesTo(c.Type), ", "), "no other type now")
	} else {
		line += "; the types it may move to: " + unknownText(p, topology.OrNotRead(k.AvailableTypes.Reason))
	}
	fmt.Fprintf(w, "  offer       %s\n", line)
	h := r.Plan.Headroom
	if h == nil {
		return
	}
	var nodes []string
	var etcd string
	for _, m := range h.Measures {
		if m.Name == topology.MeasureEtcd {
			etcd = measureText(p, m, h.Type)
			continue
		}
		nodes = append(nodes, measureText(p, m, h.Type))
	}
	fmt.Fprintf(w, "  headroom    %s\n", strings.Join(nodes, "; "))
	if etcd != "" {
		fmt.Fprintf(w, "              %s\n", etcd)
	}
}

// measureText writes one headroom figure: "nodes 4 of 150 (3%)", "etcd
// 12.3 MB of 55 MB (23%, an upper bound: …)", "etcd unknown (why)"; the
// limit's type is named when it is not the cluster's (typ): "203 of
// kapsule-dedicated-4's 250 (82%)".
func measureText(p palette, m topology.HeadroomMeasure, typ string) string {
	if !m.Used.Known {
		return m.Text + " " + unknownText(p, topology.OrNotRead(m.Used.Reason))
	}
	s := m.Text + " " + m.AmountText(m.Used.Value)
	if !m.Limit.Known {
		return s + " (limit unknown)"
	}
	if m.LimitOf != "" && m.LimitOf != typ {
		s += " of " + m.LimitOf + "'s " + m.AmountText(m.Limit.Value)
	} else {
		s += " of " + m.AmountText(m.Limit.Value)
	}
	if m.Percent != nil {
		pct := fmt.Sprintf("%d%%", *m.Percent)
		if m.UpperBound {
			pct += ", an upper bound: the database file as allocated, which compaction does not shrink"
		}
		s += " (" + pct + ")"
	}
	return s
}

// headroomCell is the fleet's HEADROOM column: the fullest of the node
// figures and etcd, each as a share of its limit ("nodes 6%, etcd 41%"),
// "?" for a share that is not known (a figure or a limit not read), "≥6%"
// when another node figure is not known, "-" for a stack without an offer.
func headroomCell(h *topology.Headroom) string {
	if h == nil {
		return "-"
	}
	nodes, etcd := -1, -1
	floor := false // a node figure not known: the share shown is at least that
	for _, m := range h.Measures {
		switch {
		case m.Name == topology.MeasureEtcd && m.Percent != nil:
			etcd = *m.Percent
		case m.Name == topology.MeasureEtcd:
		case m.Percent != nil:
			nodes = max(nodes, *m.Percent)
		default:
			floor = true
		}
	}
	share := func(p int, floor bool) string {
		switch {
		case p < 0:
			return "?"
		case floor:
			return fmt.Sprintf("≥%d%%", p)
		}
		return fmt.Sprintf("%d%%", p)
	}
	return "nodes " + share(nodes, floor) + ", etcd " + share(etcd, false)
}
