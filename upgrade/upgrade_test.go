package upgrade

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// upFinding is what a test expects of an upgrade finding: its severity,
// kind, subject, minor and step, and substrings of its message, source and
// reach.
type upFinding struct {
	sev                topology.Severity
	kind               topology.FindingKind
	subject            string
	minor, step        string
	has, source, reach string
}

func checkUpgradeFindings(t *testing.T, got []topology.Finding, want []upFinding) {
	t.Helper()
	if got == nil {
		t.Fatalf("findings are nil: must be [] (never null)")
	}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%s\nwant %d:\n%+v", upFindingsText(got), len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Severity != w.sev || g.Kind != w.kind || g.Subject.Text != w.subject || g.Minor != w.minor || g.Step != w.step ||
			!strings.Contains(g.Message, w.has) || !strings.Contains(g.Source, w.source) || !strings.Contains(g.Reach, w.reach) {
			t.Errorf("finding %d:\n%s\nwant %+v", i, upFindingsText(got[i:i+1]), w)
		}
	}
}

func upFindingsText(fs []topology.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s %q minor=%q step=%q\n    %s\n    source: %s\n    reach: %s\n", f.Severity, f.Kind, f.Subject, f.Minor, f.Step, f.Message, f.Source, f.Reach)
	}
	return b.String()
}

// moveTo is a target planned by one step, from the minor before.
func moveTo(from, to string) UpgradeMove {
	return UpgradeMove{Minor: kube.ParseVersion(to), To: kube.ParseVersion(to), From: kube.ParseVersion(from), Why: []string{"planned"}, Steps: []string{"upgrade kubernetes → " + to}}
}

var flowcontrolServed = ServedAPIs{
	GroupVersions: []kube.ServedGroupVersion{
		{GroupVersion: "v1", Kinds: []string{"ConfigMap", "Pod"}},
		{GroupVersion: "flowcontrol.apiserver.k8s.io/v1", Kinds: []string{"FlowSchema", "PriorityLevelConfiguration"}},
		{GroupVersion: "flowcontrol.apiserver.k8s.io/v1beta3", Kinds: []string{"FlowSchema", "PriorityLevelConfiguration"}},
	},
	Resources: []ServedResource{
		{GroupVersion: "flowcontrol.apiserver.k8s.io/v1beta3", Resource: "flowschemas", Kind: "FlowSchema"},
		{GroupVersion: "flowcontrol.apiserver.k8s.io/v1beta3", Resource: "prioritylevelconfigurations", Kind: "PriorityLevelConfiguration"},
	},
}

func callsOf(instances topology.Fact[int], reqs ...DeprecatedCall) topology.Fact[DeprecatedCalls] {
	start := time.Date(2026, 11, 28, 10, 2, 0, 0, time.UTC)
	return topology.KnownFact(DeprecatedCalls{Requests: reqs, Complete: true, WindowStart: &start, Instances: instances})
}

var flowschemaCall = DeprecatedCall{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Resource: "flowschemas", RemovedRelease: "1.32"}

func TestJudgeUpgradeAPIs(t *testing.T) {
	to132 := []UpgradeMove{moveTo("1.31", "1.32")}
	const step = "upgrade kubernetes → 1.32"
	const served = "upgrade to 1.32: the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32 stops serving it (use v1)"
	three := topology.KnownFact(3)
	tests := []struct {
		name    string
		targets []UpgradeMove
		served  topology.Fact[ServedAPIs]
		calls   topology.Fact[DeprecatedCalls]
		want    []upFinding
	}{
		{name: "served, no call recorded: warning", targets: to132, served: topology.KnownFact(flowcontrolServed), calls: callsOf(three),
			want: []upFinding{{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step,
				served + "; no request to it recorded by this API server since 2026-11-28 10:02 UTC", "k8s.io/api v0.37.2 lifecycle; apiserver_requested_deprecated_apis", "this API server's discovery (/api, /apis); calls: one API server instance of 3"}}},
		{name: "served and called: error, the call not said twice", targets: to132, served: topology.KnownFact(flowcontrolServed), calls: callsOf(three, flowschemaCall),
			want: []upFinding{{topology.SeverityError, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step,
				served + "; requests to flowcontrol.apiserver.k8s.io/v1beta3 flowschemas recorded by this API server since 2026-11-28 10:02 UTC (its start): those clients break", "apiserver_requested_deprecated_apis", "one API server instance of 3"}}},
		{name: "calls forbidden: unknown with the permission, the removal a warning", targets: to132, served: topology.KnownFact(flowcontrolServed),
			calls: topology.UnknownFact[DeprecatedCalls](topology.Because(topology.ReasonForbidden, "forbidden (user ci cannot get /metrics)")),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "/metrics", "1.32", step, `the API server's calls to deprecated APIs were not read (forbidden (user ci cannot get /metrics)): which clients break on 1.32 is not known; reading it needs a ClusterRole rule nonResourceURLs: ["/metrics"], verbs: ["get"]`, "apiserver_requested_deprecated_apis", "the API server"},
				{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step, served + "; whether clients call it is not known (/metrics not read)", "k8s.io/api v0.37.2 lifecycle", "this API server's discovery"},
			}},
		{name: "calls timed out: no permission pointer", targets: to132, served: topology.KnownFact(flowcontrolServed), calls: topology.UnknownFact[DeprecatedCalls](topology.Because(topology.ReasonFailed, "timed out after 10s")),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "/metrics", "1.32", step, "were not read (timed out after 10s): which clients break on 1.32 is not known", "", ""},
				{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step, "whether clients call it is not known", "", ""},
			}},
		{name: "the metrics read stopped at its bound", targets: to132, served: topology.KnownFact(flowcontrolServed),
			calls: topology.KnownFact(DeprecatedCalls{Complete: false, Limit: 1024, Instances: topology.UnknownFact[int](topology.Because(topology.ReasonFailed, "forbidden (user ci cannot list leases)"))}),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "/metrics", "1.32", step, "stopped at its bound of 1024 bytes", "", "one API server instance of an unknown number (forbidden (user ci cannot list leases))"},
				{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step, "no request to it in the part of /metrics read: whether clients call it is not known", "", "calls: one API server instance of an unknown number"},
			}},
		{name: "calls discovery does not tie: judged by the server's removed_release", targets: to132,
			served: topology.KnownFact(ServedAPIs{GroupVersions: []kube.ServedGroupVersion{{GroupVersion: "v1", Kinds: []string{"Pod"}}}}),
			calls: callsOf(topology.KnownFact(1),
				DeprecatedCall{Group: "batch", Version: "v1beta1", Resource: "cronjobs", RemovedRelease: "1.25"},
				DeprecatedCall{Group: "storage.k8s.io", Version: "v1beta1", Resource: "csistoragecapacities", Subresource: "status", RemovedRelease: "1.40"},
				DeprecatedCall{Version: "v1", Resource: "componentstatuses"}),
			want: []upFinding{
				{topology.SeverityError, FindingDeprecatedCall, "batch/v1beta1", "1.32", step, "upgrade to 1.32: requests to batch/v1beta1 cronjobs recorded by this API server since 2026-11-28 10:02 UTC (its start); 1.32 stops serving it (by the API server's own removed_release 1.25): those clients break", "apiserver_requested_deprecated_apis (/metrics)", "one API server instance of 1: the whole control plane"},
				{topology.SeverityInfo, FindingDeprecatedCall, "storage.k8s.io/v1beta1", "1.32", step, "storage.k8s.io/v1beta1 csistoragecapacities/status recorded by this API server since 2026-11-28 10:02 UTC (its start); deprecated, still served by 1.32 (the API server plans its removal for 1.40)", "", ""},
				{topology.SeverityInfo, FindingDeprecatedCall, "v1", "1.32", step, "requests to v1 componentstatuses recorded by this API server since 2026-11-28 10:02 UTC (its start); deprecated, still served by 1.32 (the API server plans no removal)", "", ""},
			}},
		{name: "each removal said once, at the move that makes it", targets: []UpgradeMove{moveTo("1.31", "1.32"), moveTo("1.32", "1.33")}, served: topology.KnownFact(flowcontrolServed), calls: callsOf(three),
			want: []upFinding{{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step, served, "", ""}}},
		{name: "beyond the horizon: a floor, said", targets: []UpgradeMove{moveTo("1.37", "1.38")},
			served: topology.KnownFact(ServedAPIs{GroupVersions: []kube.ServedGroupVersion{{GroupVersion: "resource.k8s.io/v1beta1", Kinds: []string{"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"}}}}),
			calls:  callsOf(topology.KnownFact(2)),
			want: []upFinding{
				{topology.SeverityWarning, FindingRemovedAPI, "resource.k8s.io/v1beta1", "1.38", "upgrade kubernetes → 1.38", "the cluster serves resource.k8s.io/v1beta1; 1.38 is to stop serving it, as k8s.io/api v0.37.2 plans (no replacement recorded); no request to it recorded", "k8s.io/api v0.37.2 lifecycle", "one API server instance of 2"},
				{topology.SeverityInfo, FindingUpgradeUnknown, "1.38", "1.38", "upgrade kubernetes → 1.38", "1.38 is beyond the lifecycle table's horizon (k8s.io/api v0.37.2 knows the removals of 1.37 and older, and those it plans): what 1.38 itself stops serving is not known here", "k8s.io/api v0.37.2 lifecycle", ""},
			}},
		{name: "discovery unread: unknown, the calls still judged", targets: to132, served: topology.UnknownFact[ServedAPIs](topology.Because(topology.ReasonFailed, "forbidden (user ci cannot get path /apis)")), calls: callsOf(three, flowschemaCall),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "served APIs", "1.32", step, "the API server's discovery was not read (forbidden (user ci cannot get path /apis)): what 1.32 stops serving is not known", "k8s.io/api v0.37.2 lifecycle", "this API server's discovery"},
				{topology.SeverityError, FindingDeprecatedCall, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", step, "1.32 stops serving it (by the API server's own removed_release 1.32)", "", ""},
			}},
		{name: "group versions the table does not know, or not Kubernetes' own", targets: to132,
			served: topology.KnownFact(ServedAPIs{GroupVersions: []kube.ServedGroupVersion{
				{GroupVersion: "apps/v1alpha9", Kinds: []string{"Thing"}}, {GroupVersion: "apps/v1", Kinds: []string{"Deployment", "Gadget"}},
				{GroupVersion: "ceph.rook.io/v1", Kinds: []string{"CephCluster"}}, {GroupVersion: "metrics.k8s.io/v1beta1"},
			}}),
			calls: callsOf(three),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "served APIs", "1.32", step, "the cluster serves apps/v1 Gadget, apps/v1alpha9, which k8s.io/api v0.37.2 does not hold: whether 1.32 serves them is not known here", "", ""},
				{topology.SeverityInfo, FindingUpgradeUnknown, "served APIs", "1.32", step, "2 served group versions are not in k8s.io/api v0.37.2 (ceph.rook.io/v1, metrics.k8s.io/v1beta1): CustomResourceDefinitions, aggregated APIs, or Kubernetes groups kept in other modules (apiextensions.k8s.io, apiregistration.k8s.io); its lifecycle table says nothing of them, so whether 1.32 serves them is not judged", "", ""},
			}},
		{name: "one group version not in the table's module", targets: to132, served: topology.KnownFact(ServedAPIs{GroupVersions: []kube.ServedGroupVersion{{GroupVersion: "apiextensions.k8s.io/v1", Kinds: []string{"CustomResourceDefinition"}}}}), calls: callsOf(three),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "served APIs", "1.32", step, "1 served group version is not in k8s.io/api v0.37.2 (apiextensions.k8s.io/v1)", "", ""}}},
		{name: "a forced move without a step", targets: []UpgradeMove{{Minor: kube.ParseVersion("1.32"), To: kube.ParseVersion("1.32.5"), From: kube.ParseVersion("1.31"), Forced: true, Date: dayp(2026, 12, 20)}},
			served: topology.KnownFact(flowcontrolServed), calls: callsOf(three),
			want: []upFinding{{topology.SeverityWarning, FindingRemovedAPI, "flowcontrol.apiserver.k8s.io/v1beta3", "1.32", "", "the provider's move to 1.32.5 on 2026-12-20: the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32 stops serving it", "", ""}}},
		{name: "calls with an unknown window", targets: to132, served: topology.KnownFact(ServedAPIs{}),
			calls: topology.KnownFact(DeprecatedCalls{Complete: true, Requests: []DeprecatedCall{{Group: "batch", Version: "v1beta1", Resource: "cronjobs", RemovedRelease: "1.25"}}, Instances: topology.UnknownFact[int](topology.Because(topology.ReasonFailed, "no API server identity lease in kube-system"))}),
			want:  []upFinding{{topology.SeverityError, FindingDeprecatedCall, "batch/v1beta1", "1.32", step, "recorded by this API server since an unknown time (process_start_time_seconds was not read)", "", "one API server instance of an unknown number (no API server identity lease in kube-system)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JudgeUpgrade(&topology.Topology{}, UpgradeDue{Moves: tt.targets}, UpgradeFacts{Served: tt.served, DeprecatedCalls: tt.calls})
			checkUpgradeFindings(t, got, tt.want)
		})
	}
}

func TestJudgeUpgradeLayers(t *testing.T) {
	to134 := []UpgradeMove{moveTo("1.33", "1.34")}
	const step = "upgrade kubernetes → 1.34"
	cilium := func(image string) LayerImage {
		return LayerImage{Layer: "cilium", Kind: topology.KindDaemonSet, Namespace: "kube-system", Workload: "cilium", Container: "cilium-agent", Image: image}
	}
	layers := func(names ...string) *topology.Topology {
		t := &topology.Topology{}
		for _, n := range names {
			t.Layers = append(t.Layers, topology.LayerRef{Name: n})
		}
		return t
	}
	const reach = "the image of DaemonSet kube-system/cilium, container cilium-agent"
	tests := []struct {
		name    string
		topo    *topology.Topology
		targets []UpgradeMove
		images  topology.Fact[[]LayerImage]
		want    []upFinding
	}{
		{name: "outside its tested range: warning", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.18.3")}),
			want: []upFinding{{topology.SeverityWarning, FindingLayerUnsupported, "layer cilium", "1.34", step, "upgrade to 1.34: cilium 1.18.3 is e2e tested with Kubernetes 1.30–1.33, not 1.34; upgrade cilium first", "cilium/cilium/v1.18.14", reach}}},
		{name: "inside: nothing", topo: layers("cilium"), targets: []UpgradeMove{moveTo("1.32", "1.33")}, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.18.3@sha256:" + strings.Repeat("a", 64))})},
		{name: "each move judged", topo: layers("cilium"), targets: []UpgradeMove{moveTo("1.32", "1.33"), moveTo("1.33", "1.34")}, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.18.3")}),
			want: []upFinding{{topology.SeverityWarning, FindingLayerUnsupported, "layer cilium", "1.34", step, "not 1.34", "", ""}}},
		{name: "by digest: unknown", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium@sha256:" + strings.Repeat("b", 64))}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer cilium", "1.34", step, "is named by digest only: its release is not in the reference: whether it supports 1.34 is not known", "nestor's layer support table", reach}}},
		{name: "a tag that is no version: unknown", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:stable")}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer cilium", "1.34", step, `tag "stable" is not a release version`, "", reach}}},
		{name: "an old release its project's page states: judged from its row", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.16.3")}),
			want: []upFinding{{topology.SeverityWarning, FindingLayerUnsupported, "layer cilium", "1.34", step, "cilium 1.16.3 is e2e tested with Kubernetes 1.27–1.30, not 1.34; upgrade cilium first", "v1.16.7", reach}}},
		{name: "a release older than every row: unknown, saying why", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.14.2")}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer cilium", "1.34", step, "cilium 1.14.2 is older than every release this nestor's support table for cilium (as of 2026-11-30) holds, the oldest 1.16: Cilium's compatibility pages of the releases before 1.16 were not read", "nestor's layer support table", reach}}},
		{name: "a release between two rows: unknown", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.17.2")}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer cilium", "1.34", step, "has no row for 1.17.2 (the nearest rows are 1.16 and 1.18)", "", reach}}},
		{name: "a release newer than every row: unknown", topo: layers("cilium"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.20.0")}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer cilium", "1.34", step, "cilium 1.20.0 is newer than every release this nestor's support table for cilium (as of 2026-11-30) holds, the newest 1.19", "", reach}}},
		{name: "a minimum only", topo: layers("longhorn"), targets: to134,
			images: topology.KnownFact([]LayerImage{{Layer: "longhorn", Kind: topology.KindDaemonSet, Namespace: "longhorn-system", Workload: "longhorn-manager", Container: "longhorn-manager", Image: "longhornio/longhorn-manager:v1.7.2"}}),
			want:   []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layer longhorn", "1.34", step, "publishes no upper bound", "documentation.suse.com", "longhorn-system/longhorn-manager"}}},
		{name: "images unread: one unknown", topo: layers("cilium", "cnpg"), targets: to134, images: topology.UnknownFact[[]LayerImage](topology.Because(topology.ReasonFailed, "forbidden (user ci cannot list daemonsets.apps in namespace kube-system)")),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "layers", "1.34", step, "the declared layers' images were not read (forbidden (user ci cannot list daemonsets.apps in namespace kube-system)): their support of 1.34 is not judged", "", "the declared layers"}}},
		{name: "no table, no release in the image, no table read, no image", topo: layers("my-app", "flux", "kube-prometheus-stack", "cnpg"), targets: to134, images: topology.KnownFact([]LayerImage{cilium("quay.io/cilium/cilium:v1.18.3")}),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "layer my-app", "1.34", step, "this nestor holds no Kubernetes support table for my-app", "", ""},
				{topology.SeverityInfo, FindingUpgradeUnknown, "layer flux", "1.34", step, "flux's release cannot be read from its image", "", ""},
				{topology.SeverityInfo, FindingUpgradeUnknown, "layer kube-prometheus-stack", "1.34", step, "no Kubernetes support table of kube-prometheus-stack was read", "", ""},
				{topology.SeverityInfo, FindingUpgradeUnknown, "layer cnpg", "1.34", step, "the image of cnpg's main workload (Deployment cnpg-controller-manager, container manager) was not among the workloads read", "", ""},
			}},
		{name: "no layer declared", topo: layers(), targets: to134, images: topology.UnknownFact[[]LayerImage](topology.Because(topology.ReasonFailed, "not read"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JudgeUpgrade(tt.topo, UpgradeDue{Moves: tt.targets},
				UpgradeFacts{Served: topology.KnownFact(ServedAPIs{}), DeprecatedCalls: callsOf(topology.KnownFact(1)), LayerImages: tt.images})
			checkUpgradeFindings(t, got, tt.want)
		})
	}
}

func TestJudgeUpgradeDrains(t *testing.T) {
	// The plan: the API server's upgrade drains the control plane cp1,
	// then the kubelets of n1 and n2 move, n1 twice.
	const (
		up   = "upgrade kubernetes → 1.35"
		n1a  = "upgrade-node n1 → 1.34"
		n1b  = "upgrade-node n1 → 1.35"
		n2   = "upgrade-node n2 → 1.35"
		pool = "upgrade-pool burst → 1.35"
	)
	known := func(nodes ...string) topology.Fact[[]string] { return topology.KnownFact(append([]string{}, nodes...)) }
	plan := UpgradeDue{Drains: []string{up, n1a, n1b, n2}, DrainNodes: []DrainStep{
		{Step: up, Nodes: known("cp1")}, {Step: n1a, Nodes: known("n1")}, {Step: n1b, Nodes: known("n1")}, {Step: n2, Nodes: known("n2")}}}
	withPool := UpgradeDue{Drains: []string{n1a, pool}, DrainNodes: []DrainStep{
		{Step: n1a, Nodes: known("n1")}, {Step: pool, Nodes: topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider's nodes were not read (timed out after 10s)"))}}}
	pdb := func(ns, name string, allowed, current, desired, expected int32, gen, observed int64, nodes topology.Fact[[]string]) PDBState {
		return PDBState{Namespace: ns, Name: name, DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: expected,
			Generation: gen, ObservedGeneration: observed, Selector: "app=" + name, PodNodes: nodes}
	}
	podsOn := "the pods it selects in namespace"
	tests := []struct {
		name string
		due  UpgradeDue
		pdbs topology.Fact[[]PDBState]
		want []upFinding
	}{
		{name: "each blocker under the first step that drains a node running its pods, never the first draining step by default", due: plan, pdbs: topology.KnownFact([]PDBState{
			pdb("rook-ceph", "rook-ceph-osd", 0, 2, 2, 3, 1, 1, known("n1", "n2", "n9")),
			pdb("cnpg", "pg-main", 0, 1, 1, 1, 2, 2, known("n2")),
			pdb("kube-system", "coredns", 0, 1, 1, 2, 1, 1, known("cp1")),
			pdb("web", "frontend", 1, 3, 2, 3, 1, 1, known("n1")),
			pdb("web", "nothing-selected", 0, 0, 0, 0, 1, 1, known()),
		}), want: []upFinding{
			{topology.SeverityWarning, FindingDrainBlocker, "pdb cnpg/pg-main", "", n2, "PodDisruptionBudget cnpg/pg-main allows no disruption now (disruptionsAllowed 0: 1 of 1 pods healthy, 1 required); as configured it requires every pod healthy, so it never allows one until it is changed: draining n2, which runs its pods, waits until it allows one (the planned step " + n2 + " drains it)", "policy/v1 PodDisruptionBudget status", podsOn + " cnpg (selector app=pg-main)"},
			{topology.SeverityWarning, FindingDrainBlocker, "pdb kube-system/coredns", "", up, "draining cp1, which runs its pods, waits until it allows one (the planned step " + up + " drains it)", "", ""},
			{topology.SeverityWarning, FindingDrainBlocker, "pdb rook-ceph/rook-ceph-osd", "", n1a, "PodDisruptionBudget rook-ceph/rook-ceph-osd allows no disruption now (disruptionsAllowed 0: 2 of 3 pods healthy, 2 required): draining n1 or n2, which run its pods, waits until it allows one (3 planned steps drain them, the first " + n1a + ")", "", podsOn},
		}},
		{name: "pods on nodes no step drains: nothing held", due: plan, pdbs: topology.KnownFact([]PDBState{pdb("cnpg", "pg-main", 0, 1, 1, 1, 1, 1, known("n9")), pdb("web", "pending", 0, 0, 1, 1, 1, 1, known())})},
		{name: "pods' nodes not read: unknown, under no step", due: plan, pdbs: topology.KnownFact([]PDBState{
			pdb("cnpg", "pg-main", 0, 1, 1, 1, 1, 1, topology.UnknownFact[[]string](topology.Because(topology.ReasonForbidden, "forbidden (user ci cannot list pods in namespace cnpg)")))}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "pdb cnpg/pg-main", "", "", "PodDisruptionBudget cnpg/pg-main allows no disruption now (disruptionsAllowed 0: 1 of 1 pods healthy, 1 required); as configured it requires every pod healthy, so it never allows one until it is changed; which nodes run its pods is not known (forbidden (user ci cannot list pods in namespace cnpg)), so which planned step it holds up is not known (4 planned steps drain nodes, the first " + up + ")", "", "the whole cluster"}}},
		{name: "a step whose nodes were not read: said so beside the steps held, or an unknown under it", due: withPool, pdbs: topology.KnownFact([]PDBState{
			pdb("cnpg", "pg-main", 0, 1, 1, 1, 1, 1, known("n1")),
			pdb("rook-ceph", "rook-ceph-osd", 0, 2, 2, 3, 1, 1, known("burst-1")),
		}), want: []upFinding{
			{topology.SeverityWarning, FindingDrainBlocker, "pdb cnpg/pg-main", "", n1a, "draining n1, which runs its pods, waits until it allows one (the planned step " + n1a + " drains it); which nodes 1 other planned step drains is not known (the provider's nodes were not read (timed out after 10s)), so whether it waits too is not known", "", ""},
			{topology.SeverityInfo, FindingUpgradeUnknown, "pdb rook-ceph/rook-ceph-osd", "", pool, "its pods run on burst-1, and which nodes the planned step " + pool + " drains is not known (the provider's nodes were not read (timed out after 10s)): whether it waits is not known", "", ""},
		}},
		{name: "a step before the first it holds whose nodes were not read: the blocker hangs under that earlier step", due: UpgradeDue{Drains: []string{pool, n1a}, DrainNodes: []DrainStep{
			{Step: pool, Nodes: topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider's nodes were not read (timed out after 10s)"))}, {Step: n1a, Nodes: known("n1")}}},
			pdbs: topology.KnownFact([]PDBState{pdb("cnpg", "pg-main", 0, 1, 1, 1, 1, 1, known("n1"))}),
			want: []upFinding{{topology.SeverityWarning, FindingDrainBlocker, "pdb cnpg/pg-main", "", pool, "draining n1, which runs its pods, waits until it allows one (the planned step " + n1a + " drains it); which nodes 1 other planned step drains is not known", "", ""}}},
		{name: "a status behind its spec: unknown, never a blocker or a pass, under the step that drains its node", due: plan, pdbs: topology.KnownFact([]PDBState{
			pdb("rook-ceph", "rook-ceph-osd", 0, 0, 0, 0, 2, 1, known("n2")), pdb("web", "frontend", 3, 3, 0, 3, 5, 0, known("cp1"))}),
			want: []upFinding{
				{topology.SeverityInfo, FindingUpgradeUnknown, "pdb rook-ceph/rook-ceph-osd", "", n2, "the status of PodDisruptionBudget rook-ceph/rook-ceph-osd is of generation 1, its spec is at 2 (the disruption controller has not caught up): whether it allows a disruption is not known, so whether draining n2, which runs its pods, waits is not known (the planned step " + n2 + " drains it)", "", podsOn},
				{topology.SeverityInfo, FindingUpgradeUnknown, "pdb web/frontend", "", up, "is of generation 0, its spec is at 5", "", ""},
			}},
		{name: "a draining step without its nodes (an older caller): its nodes unknown", due: UpgradeDue{Drains: []string{n1a}}, pdbs: topology.KnownFact([]PDBState{pdb("cnpg", "pg-main", 0, 1, 1, 1, 1, 1, known("n1"))}),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "pdb cnpg/pg-main", "", n1a, "which nodes the planned step " + n1a + " drains is not known (which nodes it drains was not given)", "", ""}}},
		{name: "unread", due: plan, pdbs: topology.UnknownFact[[]PDBState](topology.Because(topology.ReasonFailed, "forbidden (user ci cannot list poddisruptionbudgets.policy)")),
			want: []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "PodDisruptionBudgets", "", up, "the PodDisruptionBudgets were not read (forbidden (user ci cannot list poddisruptionbudgets.policy)): what holds up draining nodes is not known (4 planned steps drain nodes, the first " + up + ")", "", ""}}},
		{name: "no drain: not judged", pdbs: topology.KnownFact([]PDBState{pdb("cnpg", "pg-main", 0, 3, 3, 3, 2, 2, known("n1"))})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JudgeUpgrade(&topology.Topology{}, tt.due, UpgradeFacts{Served: topology.UnknownFact[ServedAPIs](topology.Because(topology.ReasonFailed, "x")), PDBs: tt.pdbs})
			checkUpgradeFindings(t, got, tt.want)
		})
	}
}

// TestDrainedNodes: the nodes each draining step drains, as read; unknown
// when what it rests on was not read.
func TestDrainedNodes(t *testing.T) {
	nodes := topology.KnownFact([]topology.NodeState{
		{Name: "cp2", Roles: []string{"control-plane"}}, {Name: "cp1", Roles: []string{"control-plane", "etcd"}},
		{Name: "m1", Roles: []string{"master"}}, {Name: "w1", Roles: []string{}}})
	obs := &topology.Observed{Nodes: nodes, Kapsule: &topology.KapsuleObserved{
		Pools: topology.KnownFact([]topology.KapsulePool{{ID: "p-1", Name: "default"}, {ID: "p-2", Name: "burst"}}),
		Nodes: topology.KnownFact([]topology.KapsuleNode{{Name: "scw-b-2", PoolID: "p-2"}, {Name: "scw-d-1", PoolID: "p-1"}, {Name: "scw-b-1", PoolID: "p-2"}})}}
	unread := &topology.Observed{Nodes: topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "timed out after 10s")),
		Kapsule: &topology.KapsuleObserved{Pools: topology.KnownFact([]topology.KapsulePool{{ID: "p-1", Name: "default"}}), Nodes: topology.UnknownFact[[]topology.KapsuleNode](topology.Because(topology.ReasonFailed, "forbidden"))}}
	tests := []struct {
		step   topology.Step
		obs    *topology.Observed
		want   []string
		reason string
	}{
		{topology.NewStep(topology.StepUpgradeNode, topology.PhaseK8s, "w1", "x"), obs, []string{"w1"}, ""},
		{topology.NewStep(topology.StepRepairNode, topology.PhaseK8s, "w1", "x"), obs, []string{"w1"}, ""},
		{topology.NewStep(topology.StepReplaceNode, topology.PhasePools, "scw-d-1", "x"), obs, []string{"scw-d-1"}, ""},
		{topology.NewStep(topology.StepUpgrade, topology.PhaseK8s, "kubernetes", "x"), obs, []string{"cp1", "cp2", "m1"}, ""},
		{topology.NewStep(topology.StepUpgrade, topology.PhaseK8s, "kubernetes", "x"), unread, nil, "the nodes were not read (timed out after 10s)"},
		{topology.NewStep(topology.StepUpgradePool, topology.PhasePools, "burst", "x"), obs, []string{"scw-b-1", "scw-b-2"}, ""},
		{topology.NewStep(topology.StepReplacePool, topology.PhasePools, "default", "x"), obs, []string{"scw-d-1"}, ""},
		{topology.NewStep(topology.StepReplacePool, topology.PhasePools, "default", "x"), unread, nil, "the provider's nodes were not read (forbidden)"},
		{topology.NewStep(topology.StepUpgradePool, topology.PhasePools, "burst", "x"), &topology.Observed{}, nil, "the provider's pools were not read"},
		{topology.NewStep(topology.StepUpgrade, topology.PhaseCluster, "kubernetes", "x"), obs, []string{}, ""},
		{topology.NewStep(topology.StepInstall, "cilium", "cilium", "x"), obs, []string{}, ""},
		// No node shows a control-plane role (labels removed, another
		// distribution's): not "drains nothing".
		{topology.NewStep(topology.StepUpgrade, topology.PhaseK8s, "kubernetes", "x"), &topology.Observed{Nodes: topology.KnownFact([]topology.NodeState{{Name: "a"}, {Name: "b", Roles: []string{"worker"}}})}, nil, "no node carries a control-plane role label"},
		// A pool the provider does not list: not "drains nothing".
		{topology.NewStep(topology.StepReplacePool, topology.PhasePools, "gone", "x"), obs, nil, "the provider lists no pool gone"},
	}
	for _, tt := range tests {
		got := DrainedNodes(tt.step, tt.obs)
		if tt.reason != "" {
			if got.Known || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("DrainedNodes(%s %s) = %+v; want unknown, %q", tt.step.Kind, tt.step.Target, got, tt.reason)
			}
			continue
		}
		if !got.Known || !reflect.DeepEqual(got.Value, tt.want) {
			t.Errorf("DrainedNodes(%s %s) = %+v; want %v", tt.step.Kind, tt.step.Target, got, tt.want)
		}
	}
}

func TestJudgeUpgradeNothingDue(t *testing.T) {
	// Nothing due: nothing judged, whatever the facts (none was read).
	got := JudgeUpgrade(&topology.Topology{Layers: []topology.LayerRef{{Name: "cilium"}}}, UpgradeDue{}, UpgradeFacts{})
	checkUpgradeFindings(t, got, nil)
	got = JudgeUpgrade(&topology.Topology{}, UpgradeDue{Unknown: "the cluster's version is not known (timed out after 10s): whether a move to another minor is due is not known"}, UpgradeFacts{})
	checkUpgradeFindings(t, got, []upFinding{{topology.SeverityInfo, FindingUpgradeUnknown, "upgrade", "", "", "timed out after 10s", "", "the cluster's version"}})
}

// TestFailOnUpgradeFindings: --fail-on compares Plan.FindingsAtLeast with
// its severity; the upgrade findings count by theirs.
func TestFailOnUpgradeFindings(t *testing.T) {
	due := UpgradeDue{Moves: []UpgradeMove{moveTo("1.31", "1.32")}, Drains: []string{"upgrade-node n1 → 1.32"},
		DrainNodes: []DrainStep{{Step: "upgrade-node n1 → 1.32", Nodes: topology.KnownFact([]string{"n1"})}}}
	facts := UpgradeFacts{
		Served:          topology.KnownFact(flowcontrolServed),
		DeprecatedCalls: callsOf(topology.KnownFact(1), flowschemaCall, DeprecatedCall{Version: "v1", Resource: "componentstatuses"}),
		LayerImages:     topology.UnknownFact[[]LayerImage](topology.Because(topology.ReasonFailed, "not read")),
		PDBs:            topology.KnownFact([]PDBState{{Namespace: "a", Name: "b", ExpectedPods: 2, CurrentHealthy: 1, DesiredHealthy: 1, Generation: 1, ObservedGeneration: 1, PodNodes: topology.KnownFact([]string{"n1"})}}),
	}
	p := topology.Plan{Findings: JudgeUpgrade(&topology.Topology{Layers: []topology.LayerRef{{Name: "cilium"}}}, due, facts)}
	// removed-api error; componentstatuses info; layers unread info; drain blocker warning.
	for sev, want := range map[topology.Severity]int{topology.SeverityError: 1, topology.SeverityWarning: 2, topology.SeverityInfo: 4} {
		if got := p.FindingsAtLeast(sev); got != want {
			t.Errorf("FindingsAtLeast(%s) = %d, want %d\n%s", sev, got, want, upFindingsText(p.Findings))
		}
	}
}

func TestNextHardDate(t *testing.T) {
	prod := func(v string) *topology.Observed { return &topology.Observed{ServerVersion: topology.KnownFact(v)} }
	blocker := func(sev topology.Severity, kind topology.FindingKind, minor string) topology.Finding {
		return topology.Finding{Severity: sev, Kind: kind, Minor: minor}
	}
	findings := []topology.Finding{
		blocker(topology.SeverityError, FindingRemovedAPI, "1.36"),
		blocker(topology.SeverityWarning, FindingLayerUnsupported, "1.36"),
		blocker(topology.SeverityInfo, FindingDeprecatedCall, "1.36"),
		blocker(topology.SeverityError, FindingDeprecatedCall, "1.37"),
		blocker(topology.SeverityWarning, FindingDrainBlocker, ""),
		blocker(topology.SeverityWarning, FindingUpgradeUnknown, "1.36"),
		blocker(topology.SeverityError, topology.FindingDowngrade, "1.36"),
	}
	due136 := UpgradeDue{Moves: []UpgradeMove{moveTo("1.35", "1.36"), moveTo("1.36", "1.37")}}
	tests := []struct {
		name string
		obs  *topology.Observed
		due  UpgradeDue
		asOf time.Time
		want *HardDate
	}{
		{name: "upstream end of life, judged", obs: prod("v1.35.1"), due: due136, asOf: kube.Day(2027, 1, 15),
			want: &HardDate{Date: kube.Day(2027, 2, 28), What: "upstream end of life of 1.35", Minor: "1.36", Days: 44, Judged: true, Blockers: 2, Unknowns: 1}},
		{name: "past", obs: prod("v1.34.1"), asOf: kube.Day(2026, 12, 1),
			want: &HardDate{Date: kube.Day(2026, 10, 27), What: "upstream end of life of 1.34", Minor: "1.35", Days: -35}},
		{name: "not judged: no count", obs: prod("v1.35.1"), due: UpgradeDue{}, asOf: kube.Day(2026, 6, 1),
			want: &HardDate{Date: kube.Day(2027, 2, 28), What: "upstream end of life of 1.35", Minor: "1.36", Days: 272}},
		{name: "estimated", obs: prod("v1.38.0"), asOf: kube.Day(2026, 12, 20),
			want: &HardDate{Date: kube.Day(2028, 2, 28), What: "upstream end of life of 1.38", Minor: "1.39", Days: 435, Estimated: true}},
		{name: "the provider's end of life comes first", obs: kapsuleAt("1.35.2", "1.35.2", topology.KapsuleVersion{Name: "1.35.2", EndOfLifeAt: dayp(2027, 1, 31)}), due: due136, asOf: kube.Day(2027, 1, 15),
			want: &HardDate{Date: kube.Day(2027, 1, 31), What: "provider end of life of 1.35: the provider moves the cluster to 1.36", Minor: "1.36", Days: 16, Forced: true, Judged: true, Blockers: 2, Unknowns: 1}},
		{name: "upstream's comes first", obs: kapsuleAt("1.35.2", "1.35.2", topology.KapsuleVersion{Name: "1.35.2", EndOfLifeAt: dayp(2027, 6, 30)}), asOf: kube.Day(2027, 1, 15),
			want: &HardDate{Date: kube.Day(2027, 2, 28), What: "upstream end of life of 1.35", Minor: "1.36", Days: 44}},
		{name: "newer than the calendar, no provider: none", obs: prod("v1.45.0"), asOf: kube.Day(2026, 12, 1)},
		{name: "version unknown: none", obs: &topology.Observed{ServerVersion: topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "forbidden"))}, asOf: kube.Day(2026, 12, 1)},
		{name: "no day: none", obs: prod("v1.35.1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NextHardDate(tt.obs, tt.due, findings, tt.asOf)
			if ok != (tt.want != nil) || ok && got != *tt.want {
				t.Errorf("NextHardDate = %+v, %v\nwant %+v", got, ok, tt.want)
			}
		})
	}
}

func TestCompareHardDates(t *testing.T) {
	a := &HardDate{Date: kube.Day(2027, 1, 1), Blockers: 1}
	b := &HardDate{Date: kube.Day(2027, 1, 1), Blockers: 3}
	c := &HardDate{Date: kube.Day(2027, 2, 1), Blockers: 9}
	tests := []struct {
		x, y *HardDate
		want int
	}{
		{a, c, -1}, {c, a, 1}, {b, a, -1}, {a, b, 1}, {a, a, 0}, {a, nil, -1}, {nil, a, 1}, {nil, nil, 0},
	}
	for i, tt := range tests {
		if got := CompareHardDates(tt.x, tt.y); got != tt.want {
			t.Errorf("case %d: CompareHardDates = %d, want %d", i, got, tt.want)
		}
	}
}

// TestJudgeUpgradeInstancesUnread: with no call to say and no removal, the
// API server instances not counted would reach no finding: an unknown says
// it; with a removal, its reach says it and nothing is added.
func TestJudgeUpgradeInstancesUnread(t *testing.T) {
	served := ServedAPIs{GroupVersions: []kube.ServedGroupVersion{{GroupVersion: "v1", Kinds: []string{"ConfigMap"}}}}
	lost := topology.UnknownFact[int](topology.Because(topology.ReasonFailed, "forbidden (user ci cannot list leases.coordination.k8s.io in namespace kube-system)"))
	due := UpgradeDue{Moves: []UpgradeMove{moveTo("1.31", "1.32")}}
	got := JudgeUpgrade(&topology.Topology{}, due, UpgradeFacts{Served: topology.KnownFact(served), DeprecatedCalls: callsOf(lost), LayerImages: topology.KnownFact([]LayerImage{})})
	var said []topology.Finding
	for _, f := range got {
		if f.Subject == topology.APISubject("/metrics") {
			said = append(said, f)
		}
	}
	if len(said) != 1 || said[0].Kind != FindingUpgradeUnknown || !strings.Contains(said[0].Message, "cannot list leases") || said[0].Step != "upgrade kubernetes → 1.32" {
		t.Errorf("no call, instances unread:\n%s", upFindingsText(got))
	}
	got = JudgeUpgrade(&topology.Topology{}, due, UpgradeFacts{Served: topology.KnownFact(flowcontrolServed), DeprecatedCalls: callsOf(lost), LayerImages: topology.KnownFact([]LayerImage{})})
	for _, f := range got {
		if f.Subject == topology.APISubject("/metrics") {
			t.Errorf("a removal's reach says the instances; an unknown too:\n%s", upFindingsText(got))
		}
	}
	got = JudgeUpgrade(&topology.Topology{}, due, UpgradeFacts{Served: topology.KnownFact(served), DeprecatedCalls: callsOf(topology.KnownFact(3)), LayerImages: topology.KnownFact([]LayerImage{})})
	for _, f := range got {
		if f.Subject == topology.APISubject("/metrics") {
			t.Errorf("instances read: %v", f)
		}
	}
}
