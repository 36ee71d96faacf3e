package views

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/prod"
	"nestor.dev/nestor/topology"

	"nestor.dev/nestor/tests/golden"
)

// TestTableVisibleWidth: a table pads by what a terminal shows: a
// coloured cell, a wide (CJK) cell and a cell with a combining mark take
// their visible width, so every column starts at the same screen column
// on every row.
func TestTableVisibleWidth(t *testing.T) {
	p := newPalette(true)
	tw := newTable("  ")
	tw.row("NAME", "READY", "NOTE")
	tw.row("demo1", p.green("True"), "a")
	tw.row("demo2", p.red("Unknown")+","+p.yellow("SchedulingDisabled"), "b")
	tw.row("節点", "e\u0301", "c")
	tw.row("x", "y") // ends early: its last cell widens nothing
	var b bytes.Buffer
	if err := tw.write(&b); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"  NAME   READY                       NOTE",
		"  demo1  True                        a",
		"  demo2  Unknown,SchedulingDisabled  b",
		"  節点   e\u0301" + strings.Repeat(" ", 27) + "c",
		"  x      y",
	}
	got := strings.Split(strings.TrimSuffix(stripEscapes(b.String()), "\n"), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct {
		s string
		w int
	}{{"abc", 3}, {"\x1b[31mred\x1b[0m", 3}, {"節点", 4}, {"e\u0301", 1}, {"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", 4}, {"ｆｕｌｌ", 8}, {"a\u200bb", 2}} {
		if got := visibleWidth(c.s); got != c.w {
			t.Errorf("visibleWidth(%q) = %d, want %d", c.s, got, c.w)
		}
	}
}

// colourFixture is preview's report of a cluster whose NODES table has a
// Ready node, a cordoned one, a node whose kubelet stopped posting status
// and an undeclared one, with layers of every health.
func colourFixture() *action.Report {
	yes := true
	obs := &topology.Observed{
		ServerVersion: topology.KnownFact("v1.37.2"),
		Nodes: topology.KnownFact([]topology.NodeState{
			{Name: "dirqual1", Ready: true, ReadyStatus: "True", Roles: []string{"control-plane"}, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.11"},
			{Name: "dirqual2", Ready: true, ReadyStatus: "True", Unschedulable: true, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.12"},
			{Name: "dirqual3", ReadyStatus: "Unknown", ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status.", KubeletVersion: "v1.36.4", InternalIP: "10.67.2.13"},
			{Name: "dirqual9", Ready: true, ReadyStatus: "True", KubeletVersion: "v1.37.2", InternalIP: "10.67.2.19"},
		}),
		Layers: []topology.LayerState{
			{Name: "cilium", Declared: true, Health: topology.Healthy, Reason: "kube-system/cilium 4/4 available"},
			{Name: "rook-ceph", Declared: true, Health: topology.Degraded, Reason: "rook-ceph/rook-ceph-osd-1 0/1 available"},
			{Name: "cnpg", Declared: true, Health: topology.Absent, Reason: "none of its CRDs, StorageClasses or workloads found"},
			{Name: "argocd", Declared: true, Health: topology.Unknown, Reason: "CRDs: forbidden"},
			{Name: "metrics-server", Health: topology.Healthy, Reason: "kube-system/metrics-server 1/1 available"},
		},
		Storage: topology.KnownFact(topology.StorageState{Class: "rook-ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
	}
	obs.DeriveVersions()
	topo := goldenTopology()
	topo.Nodes = append(topo.Nodes, topology.Node{Name: "dirqual3", Role: topology.RoleWorker})
	r := action.NewReport(prod.Kind{}, &probes.Opened{Topology: topo}, obs, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	r.Target = &action.TargetInfo{Endpoint: "https://10.67.2.11:6443", Context: "admin@dirqual",
		Kubeconfig: []string{"/home/op/.kube/dirqual.config"}, Source: "topology",
		SourceDetail: "kubeconfig: in /stacks/dirqual.yaml", DeclaredEndpoint: "https://10.67.2.11:6443", EndpointMatches: &yes}
	return r
}

// colourDiscover is discover's report of the cluster r read.
func colourDiscover(r *action.Report) *action.DiscoverReport {
	o := r.Actual
	d := &action.DiscoverReport{FormatVersion: action.DiscoverFormatVersion, Stack: r.Stack, Target: r.Target,
		ServerVersion: o.ServerVersion, Nodes: o.Nodes, DefaultStorage: o.Storage,
		Namespaces:     topology.KnownFact([]string{"default", "kube-system", "rook-ceph"}),
		StorageClasses: topology.KnownFact([]topology.StorageClass{{Name: "rook-ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Default: true}}),
		CRDGroups:      topology.UnknownFact[[]string](topology.Because(topology.ReasonForbidden, "forbidden (user nestor cannot list customresourcedefinitions.apiextensions.k8s.io)")),
		BlindSpots:     []string{"flannel"},
	}
	for _, l := range o.Layers {
		if !l.Declared || l.Health == topology.Healthy || l.Health == topology.Degraded {
			d.Layers = append(d.Layers, l)
		} else {
			d.NotFound = append(d.NotFound, l)
		}
	}
	return d
}

// TestGoldenColour draws the human views with colour on and compares them
// with tests/testdata/golden/colour/<case>/: stdout.golden holds the bytes
// (escapes included), screen-80.golden and screen-200.golden what a
// terminal of 80 and 200 columns shows of them (escapes drawn as nothing,
// long lines wrapped at the width). Each view drawn in colour and stripped
// of its escapes must be byte for byte the view drawn without colour: the
// colour never moves a column.
func TestGoldenColour(t *testing.T) {
	r := colourFixture()
	cases := []struct {
		name string
		draw func(color bool) string
	}{
		{"preview", func(color bool) string {
			var b bytes.Buffer
			Preview(&b, r, PreviewOptions{Color: color}, func(s string) string { return "nestor " + s })
			return b.String()
		}},
		{"discover", func(color bool) string {
			var b bytes.Buffer
			d := colourDiscover(r)
			Discover(&b, d, &action.Stack{Topology: goldenTopology()}, color)
			return b.String()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on, off := c.draw(true), c.draw(false)
			if !strings.Contains(on, "\x1b[") {
				t.Fatalf("no colour in the view drawn with colour on:\n%s", on)
			}
			if strings.Contains(off, "\x1b") {
				t.Fatalf("an escape in the view drawn without colour:\n%s", off)
			}
			if stripEscapes(on) != off {
				t.Errorf("the coloured view, stripped of its escapes, differs from the plain view:\n%s\nplain:\n%s", stripEscapes(on), off)
			}
			dir := filepath.Join("../../../tests/testdata/golden/colour", c.name)
			got := map[string]string{"stdout": on, "screen-80": screen(on, 80), "screen-200": screen(on, 200)}
			golden.CheckDir(t, dir, got)
		})
	}
}

// screen is what a terminal cols wide shows of s: escapes drawn as
// nothing, each line wrapped after cols visible columns.
func screen(s string, cols int) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(stripEscapes(s), "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		w := 0
		for _, r := range line {
			rw := runeWidth(r)
			if w+rw > cols {
				out.WriteByte('\n')
				w = 0
			}
			out.WriteRune(r)
			w += rw
		}
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// stripEscapes returns s without its escape sequences (what a terminal
// prints of it).
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
