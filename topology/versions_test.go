package topology_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

func TestDeriveVersions(t *testing.T) {
	nodes := topology.KnownFact([]topology.NodeState{
		{Name: "c", KubeletVersion: "v1.34.1+rke2r1"},
		{Name: "b", KubeletVersion: "v1.37.2"},
		{Name: "z", KubeletVersion: "garbage"},
		{Name: "a", KubeletVersion: "v1.37.2"},
		{Name: "d", KubeletVersion: "v1.36.4"},
		{Name: "e", KubeletVersion: ""},
	})
	got := topology.DeriveVersions(topology.KnownFact("v1.37.2"), nodes)
	if !got.Known || got.Value.APIServer.Raw != "v1.37.2" || !got.Value.APIServer.Known || !got.Value.Kubelets.Known {
		t.Fatalf("DeriveVersions = %+v", got)
	}
	var summary []string
	for _, g := range got.Value.Kubelets.Value {
		summary = append(summary, fmt.Sprintf("%s×%d[%s]%v", g.Version.Raw, g.Count, strings.Join(g.Nodes, ","), g.Version.Known))
	}
	want := []string{"v1.37.2×2[a,b]true", "v1.36.4×1[d]true", "v1.34.1+rke2r1×1[c]true", "×1[e]false", "garbage×1[z]false"}
	if !reflect.DeepEqual(summary, want) {
		t.Errorf("groups = %q\nwant %q", summary, want)
	}
	if r := got.Value.Kubelets.Value[3].Version.Reason; !strings.Contains(r, "not reported") {
		t.Errorf("empty kubelet version reason = %q", r)
	}

	// The server unknown or unparseable: unknown with the reason.
	if f := topology.DeriveVersions(topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "forbidden: /version")), nodes); f.Known || f.Reason != "forbidden: /version" {
		t.Errorf("server unknown: %+v", f)
	}
	if f := topology.DeriveVersions(topology.KnownFact("garbage"), nodes); f.Known || !strings.Contains(f.Reason, `"garbage" is not a Kubernetes version`) {
		t.Errorf("server unparseable: %+v", f)
	}
	// Nodes unknown: the server version known, the kubelets unknown.
	f := topology.DeriveVersions(topology.KnownFact("v1.37.2"), topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "timed out")))
	if !f.Known || f.Value.Kubelets.Known || f.Value.Kubelets.Reason != "timed out" {
		t.Errorf("nodes unknown: %+v", f)
	}

	// Observed.DeriveVersions fills the field, and its JSON has the agreed
	// shape: versions {known, reason, value}.
	o := fixtures.SkewObserved()
	o.DeriveVersions()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Versions struct {
			Known *bool `json:"known"`
			Value struct {
				APIServer struct {
					Raw   string `json:"raw"`
					Minor int    `json:"minor"`
				} `json:"api_server"`
				Kubelets struct {
					Known bool `json:"known"`
					Value []struct {
						Version struct {
							Raw string `json:"raw"`
						} `json:"version"`
						Count int      `json:"count"`
						Nodes []string `json:"nodes"`
					} `json:"value"`
				} `json:"kubelets"`
			} `json:"value"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Versions
	if v.Known == nil || !*v.Known || v.Value.APIServer.Raw != "v1.37.2" || v.Value.APIServer.Minor != 37 || !v.Value.Kubelets.Known ||
		len(v.Value.Kubelets.Value) != 3 || v.Value.Kubelets.Value[2].Version.Raw != "v1.34.1+rke2r1" || v.Value.Kubelets.Value[2].Nodes[0] != "skew3" {
		t.Errorf("versions JSON = %s", b)
	}
}

func TestSeverity(t *testing.T) {
	for _, tc := range []struct {
		s, min topology.Severity
		want   bool
	}{
		{topology.SeverityError, topology.SeverityWarning, true},
		{topology.SeverityWarning, topology.SeverityWarning, true},
		{topology.SeverityInfo, topology.SeverityWarning, false},
		{topology.SeverityInfo, topology.SeverityInfo, true},
		{topology.Severity("fatal"), topology.SeverityInfo, false},
	} {
		if got := tc.s.AtLeast(tc.min); got != tc.want {
			t.Errorf("%s.AtLeast(%s) = %v", tc.s, tc.min, got)
		}
	}
	for in, ok := range map[string]bool{"info": true, "warning": true, "error": true, "Warning": false, "": false, "fatal": false} {
		if _, err := topology.ParseSeverity(in); (err == nil) != ok {
			t.Errorf("ParseSeverity(%q) error = %v", in, err)
		}
	}
}

// The cluster's version has one rule: a managed cluster's is its
// provider's, even when its API server was read too; otherwise the API
// server's; unknown, with why, when not read.
func TestObservedClusterVersion(t *testing.T) {
	api := topology.KnownFact(topology.VersionsState{APIServer: kube.ParseVersion("v1.36.2")})
	for _, c := range []struct {
		name string
		obs  *topology.Observed
		want string // "" unknown
	}{
		{"nothing read", nil, ""},
		{"the API server", &topology.Observed{Versions: api}, "v1.36.2"},
		{"the server version alone", &topology.Observed{ServerVersion: topology.KnownFact("v1.35.1")}, "v1.35.1"},
		{"a managed cluster read both ways", &topology.Observed{Versions: api, Kapsule: &topology.KapsuleObserved{Cluster: topology.KnownFact(topology.KapsuleCluster{Version: "1.35.3"})}}, "1.35.3"},
		{"a managed cluster whose provider was not read", &topology.Observed{Versions: api, Kapsule: &topology.KapsuleObserved{Cluster: topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonForbidden, "forbidden"))}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := c.obs.ClusterVersion()
			if got := map[bool]string{true: v.Raw}[v.Known]; got != c.want {
				t.Errorf("ClusterVersion = %q (known %v, reason %q), want %q", v.Raw, v.Known, v.Reason, c.want)
			}
			if !v.Known && v.Reason == "" {
				t.Error("an unknown version without its reason")
			}
		})
	}
}
