package topology

import (
	"testing"
)

func TestResolvePath(t *testing.T) {
	tp := &Topology{Path: "/srv/stacks/dirqual.yaml", Name: "dirqual"}
	tests := []struct {
		p, home, want string
	}{
		{"", "/home/op", ""},
		{"~", "/home/op", "/home/op"},
		{"~/.kube/dirqual.config", "/home/op", "/home/op/.kube/dirqual.config"},
		{"~/.kube/x", "", "~/.kube/x"}, // no home: left as written
		{"/etc/k/admin.conf", "/home/op", "/etc/k/admin.conf"},
		{"/etc//k/../k/admin.conf", "/home/op", "/etc/k/admin.conf"},
		{"kubeconfig", "/home/op", "/srv/stacks/kubeconfig"},
		{"../bootstrap/hosts.yaml", "/home/op", "/srv/bootstrap/hosts.yaml"},
		{"~other/x", "/home/op", "/srv/stacks/~other/x"}, // ~user is not expanded
	}
	for _, tc := range tests {
		if got := tp.ResolvePath(tc.p, tc.home); got != tc.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", tc.p, tc.home, got, tc.want)
		}
	}
}

func TestBenchKubeconfig(t *testing.T) {
	tests := []struct {
		tp   Topology
		want string
	}{
		{Topology{Path: "/w/stacks/bench.yaml", Name: "bench"}, "/w/.work/bench/kubeconfig"},
		{Topology{Path: "/w/stacks/bench.yaml", Name: "bench", Lima: &Lima{}}, "/w/.work/bench/kubeconfig"},
		{Topology{Path: "/w/stacks/bench.yaml", Name: "bench", Lima: &Lima{Kubeconfig: "~/bench.kubeconfig"}}, "/h/bench.kubeconfig"},
		{Topology{Path: "/w/stacks/bench.yaml", Name: "bench", Lima: &Lima{Kubeconfig: "kc"}}, "/w/stacks/kc"},
	}
	for _, tc := range tests {
		if got := tc.tp.BenchKubeconfig("/h"); got != tc.want {
			t.Errorf("BenchKubeconfig(%+v) = %q, want %q", tc.tp.Lima, got, tc.want)
		}
	}
}

func TestNodesHelpers(t *testing.T) {
	tp := &Topology{Nodes: []Node{
		{Name: "a", Role: RoleControlPlane}, {Name: "b", Role: RoleWorker}, {Name: "c", Role: RoleControlPlane},
	}}
	cps := tp.ControlPlanes()
	if len(cps) != 2 || cps[0].Name != "a" || cps[1].Name != "c" {
		t.Errorf("ControlPlanes = %+v", cps)
	}
	if n, ok := tp.Node("b"); !ok || n.Role != RoleWorker {
		t.Errorf("Node(b) = %+v, %v", n, ok)
	}
	if _, ok := tp.Node("z"); ok {
		t.Error("Node(z) found")
	}
	if (&Topology{}).ControlPlanes() != nil {
		t.Error("no nodes: want nil")
	}
}
