package kube

import (
	"reflect"
	"strings"
	"testing"
)

func TestAPIRemovals(t *testing.T) {
	fc := "flowcontrol.apiserver.k8s.io"
	tests := []struct {
		name     string
		served   []ServedGroupVersion
		target   string
		beyond   bool
		removals []APIRemoval
		messages []string
		unknown  []APIRemovalUnknown
		notCov   []string
	}{
		{
			name: "a whole group version stops being served at its removed minor",
			served: []ServedGroupVersion{
				{GroupVersion: "flowcontrol.apiserver.k8s.io/v1beta3", Kinds: []string{"PriorityLevelConfiguration", "FlowSchema"}},
				{GroupVersion: "flowcontrol.apiserver.k8s.io/v1", Kinds: []string{"FlowSchema", "PriorityLevelConfiguration"}},
				{GroupVersion: "apps/v1", Kinds: []string{"Deployment", "DaemonSet"}},
				{GroupVersion: "v1", Kinds: []string{"Pod", "ConfigMap"}},
			},
			target: "v1.32.0",
			removals: []APIRemoval{{GroupVersion: fc + "/v1beta3", Whole: true, Kinds: []RemovedKind{
				{Kind: "FlowSchema", Resource: "flowschemas", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "FlowSchema"}},
				{Kind: "PriorityLevelConfiguration", Resource: "prioritylevelconfigurations", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "PriorityLevelConfiguration"}},
			}}},
			messages: []string{"the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32 stops serving it (use v1)"},
		},
		{
			name:   "the minor before the removal still serves it",
			served: []ServedGroupVersion{{GroupVersion: fc + "/v1beta3", Kinds: []string{"FlowSchema", "PriorityLevelConfiguration"}}},
			target: "1.31",
		},
		{
			name:   "a minor after the removal does not serve it either",
			served: []ServedGroupVersion{{GroupVersion: fc + "/v1beta3", Kinds: []string{"FlowSchema"}}},
			target: "1.34",
			removals: []APIRemoval{{GroupVersion: fc + "/v1beta3", Whole: true, Kinds: []RemovedKind{
				{Kind: "FlowSchema", Resource: "flowschemas", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "FlowSchema"}},
			}}},
			messages: []string{"the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32 stops serving it (use v1)"},
		},
		{
			name: "kinds removed in different minors are named one by one; a served kind not removed keeps the group version",
			served: []ServedGroupVersion{{GroupVersion: "extensions/v1beta1",
				Kinds: []string{"Ingress", "NetworkPolicy", "DaemonSet", "Ingress"}}},
			target: "1.22",
			removals: []APIRemoval{{GroupVersion: "extensions/v1beta1", Whole: true, Kinds: []RemovedKind{
				{Kind: "DaemonSet", Resource: "daemonsets", Deprecated: "1.8", Removed: "1.16", Replacement: GroupVersionKind{"apps", "v1", "DaemonSet"}},
				{Kind: "Ingress", Resource: "ingresses", Deprecated: "1.14", Removed: "1.22", Replacement: GroupVersionKind{"networking.k8s.io", "v1", "Ingress"}},
				{Kind: "NetworkPolicy", Resource: "networkpolicies", Deprecated: "1.9", Removed: "1.16", Replacement: GroupVersionKind{"networking.k8s.io", "v1", "NetworkPolicy"}},
			}}},
			messages: []string{"the cluster serves extensions/v1beta1; 1.16 stops serving DaemonSet (use apps/v1), 1.16 stops serving NetworkPolicy (use networking.k8s.io/v1), 1.22 stops serving Ingress (use networking.k8s.io/v1)"},
		},
		{
			name:   "part of a group version: the kinds named",
			served: []ServedGroupVersion{{GroupVersion: "extensions/v1beta1", Kinds: []string{"Ingress", "NetworkPolicy"}}},
			target: "1.21",
			removals: []APIRemoval{{GroupVersion: "extensions/v1beta1", Kinds: []RemovedKind{
				{Kind: "NetworkPolicy", Resource: "networkpolicies", Deprecated: "1.9", Removed: "1.16", Replacement: GroupVersionKind{"networking.k8s.io", "v1", "NetworkPolicy"}},
			}, Remaining: []RemainingKind{{Kind: "Ingress", Resource: "ingresses", Removed: "1.22", Served: true}}}},
			messages: []string{"the cluster serves extensions/v1beta1 networkpolicies (NetworkPolicy); 1.16 stops serving it (use networking.k8s.io/v1); extensions/v1beta1 itself is still served by 1.21 for ingresses (Ingress, removed in 1.22)"},
		},
		{
			name: "a group version that loses some of its resources: those named, and the group version said to stay for the others (served now)",
			served: []ServedGroupVersion{{GroupVersion: "resource.k8s.io/v1beta2",
				Kinds: []string{"DeviceClass", "DeviceTaintRule", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"}}},
			target: "1.39",
			beyond: true,
			removals: []APIRemoval{{GroupVersion: "resource.k8s.io/v1beta2", Kinds: []RemovedKind{
				{Kind: "DeviceClass", Resource: "deviceclasses", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceClaim", Resource: "resourceclaims", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceClaimTemplate", Resource: "resourceclaimtemplates", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceSlice", Resource: "resourceslices", Deprecated: "1.36", Removed: "1.39", Planned: true},
			}, Remaining: []RemainingKind{{Kind: "DeviceTaintRule", Resource: "devicetaintrules", Removed: "1.42", Planned: true, Served: true}}}},
			messages: []string{"the cluster serves resource.k8s.io/v1beta2 deviceclasses (DeviceClass), resourceclaims (ResourceClaim), resourceclaimtemplates (ResourceClaimTemplate), resourceslices (ResourceSlice); 1.39 is to stop serving them, as k8s.io/api v0.37.2 plans (no replacement recorded); resource.k8s.io/v1beta2 itself is still served by 1.39 for devicetaintrules (DeviceTaintRule, to be removed in 1.42)"},
		},
		{
			name: "the same, when the cluster does not serve the resource that stays: still not the whole group version",
			served: []ServedGroupVersion{{GroupVersion: "resource.k8s.io/v1beta2",
				Kinds: []string{"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"}}},
			target: "1.39",
			beyond: true,
			removals: []APIRemoval{{GroupVersion: "resource.k8s.io/v1beta2", Kinds: []RemovedKind{
				{Kind: "DeviceClass", Resource: "deviceclasses", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceClaim", Resource: "resourceclaims", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceClaimTemplate", Resource: "resourceclaimtemplates", Deprecated: "1.36", Removed: "1.39", Planned: true},
				{Kind: "ResourceSlice", Resource: "resourceslices", Deprecated: "1.36", Removed: "1.39", Planned: true},
			}, Remaining: []RemainingKind{{Kind: "DeviceTaintRule", Resource: "devicetaintrules", Removed: "1.42", Planned: true}}}},
			messages: []string{"the cluster serves resource.k8s.io/v1beta2 deviceclasses (DeviceClass), resourceclaims (ResourceClaim), resourceclaimtemplates (ResourceClaimTemplate), resourceslices (ResourceSlice); 1.39 is to stop serving them, as k8s.io/api v0.37.2 plans (no replacement recorded); resource.k8s.io/v1beta2 itself is still served by 1.39 for devicetaintrules (DeviceTaintRule, to be removed in 1.42, not served by this cluster now)"},
		},
		{
			name:   "kinds not read, part of the group version removed: the table's resources named both ways",
			served: []ServedGroupVersion{{GroupVersion: "admissionregistration.k8s.io/v1beta1"}},
			target: "1.34",
			removals: []APIRemoval{{GroupVersion: "admissionregistration.k8s.io/v1beta1", KindsUnread: true, Kinds: []RemovedKind{
				{Kind: "MutatingWebhookConfiguration", Resource: "mutatingwebhookconfigurations", Deprecated: "1.16", Removed: "1.22", Replacement: GroupVersionKind{"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"}},
				{Kind: "ValidatingAdmissionPolicy", Resource: "validatingadmissionpolicies", Deprecated: "1.31", Removed: "1.34"},
				{Kind: "ValidatingAdmissionPolicyBinding", Resource: "validatingadmissionpolicybindings", Deprecated: "1.31", Removed: "1.34"},
				{Kind: "ValidatingWebhookConfiguration", Resource: "validatingwebhookconfigurations", Deprecated: "1.16", Removed: "1.22", Replacement: GroupVersionKind{"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"}},
			}, Remaining: []RemainingKind{
				{Kind: "MutatingAdmissionPolicy", Resource: "mutatingadmissionpolicies", Removed: "1.40", Planned: true},
				{Kind: "MutatingAdmissionPolicyBinding", Resource: "mutatingadmissionpolicybindings", Removed: "1.40", Planned: true},
			}}},
			messages: []string{"the cluster serves admissionregistration.k8s.io/v1beta1 (its kinds were not read); 1.22 stops serving MutatingWebhookConfiguration (use v1), 1.22 stops serving ValidatingWebhookConfiguration (use v1), 1.34 stops serving ValidatingAdmissionPolicy (no replacement recorded), 1.34 stops serving ValidatingAdmissionPolicyBinding (no replacement recorded); admissionregistration.k8s.io/v1beta1 itself is still served by 1.34 for mutatingadmissionpolicies (MutatingAdmissionPolicy, to be removed in 1.40) and mutatingadmissionpolicybindings (MutatingAdmissionPolicyBinding, to be removed in 1.40)"},
		},
		{
			name:   "a resource introduced after the target does not keep the group version",
			served: []ServedGroupVersion{{GroupVersion: "coordination.k8s.io/v1beta1", Kinds: []string{"Lease"}}},
			target: "1.22",
			removals: []APIRemoval{{GroupVersion: "coordination.k8s.io/v1beta1", Whole: true, Kinds: []RemovedKind{
				{Kind: "Lease", Resource: "leases", Deprecated: "1.19", Removed: "1.22", Replacement: GroupVersionKind{"coordination.k8s.io", "v1", "Lease"}},
			}}},
			messages: []string{"the cluster serves coordination.k8s.io/v1beta1; 1.22 stops serving it (use v1)"},
		},
		{
			name:   "a replacement of another kind names it",
			served: []ServedGroupVersion{{GroupVersion: "v1", Kinds: []string{"Endpoints"}}, {GroupVersion: "discovery.k8s.io/v1beta1", Kinds: []string{"EndpointSlice"}}},
			target: "1.25",
			removals: []APIRemoval{{GroupVersion: "discovery.k8s.io/v1beta1", Whole: true, Kinds: []RemovedKind{
				{Kind: "EndpointSlice", Resource: "endpointslices", Deprecated: "1.21", Removed: "1.25", Replacement: GroupVersionKind{"discovery.k8s.io", "v1", "EndpointSlice"}},
			}}},
			messages: []string{"the cluster serves discovery.k8s.io/v1beta1; 1.25 stops serving it (use v1)"},
		},
		{
			name:   "kinds not read: the table's kinds of the group version, said so",
			served: []ServedGroupVersion{{GroupVersion: " flowcontrol.apiserver.k8s.io/v1beta3 "}},
			target: "1.32",
			removals: []APIRemoval{{GroupVersion: fc + "/v1beta3", KindsUnread: true, Kinds: []RemovedKind{
				{Kind: "FlowSchema", Resource: "flowschemas", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "FlowSchema"}},
				{Kind: "PriorityLevelConfiguration", Resource: "prioritylevelconfigurations", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "PriorityLevelConfiguration"}},
			}}},
			messages: []string{"the cluster serves flowcontrol.apiserver.k8s.io/v1beta3 (its kinds were not read); 1.32 stops serving its kinds FlowSchema, PriorityLevelConfiguration (use v1)"},
		},
		{
			name: "the same group version listed twice: its kinds merged",
			served: []ServedGroupVersion{
				{GroupVersion: fc + "/v1beta3", Kinds: []string{"FlowSchema"}},
				{GroupVersion: fc + "/v1beta3", Kinds: []string{"PriorityLevelConfiguration"}},
			},
			target: "1.32",
			removals: []APIRemoval{{GroupVersion: fc + "/v1beta3", Whole: true, Kinds: []RemovedKind{
				{Kind: "FlowSchema", Resource: "flowschemas", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "FlowSchema"}},
				{Kind: "PriorityLevelConfiguration", Resource: "prioritylevelconfigurations", Deprecated: "1.29", Removed: "1.32", Replacement: GroupVersionKind{fc, "v1", "PriorityLevelConfiguration"}},
			}}},
			messages: []string{"the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32 stops serving it (use v1)"},
		},
		{
			name: "no replacement recorded, said so",
			served: []ServedGroupVersion{{GroupVersion: "networking.k8s.io/v1beta1", Kinds: []string{"IPAddress", "ServiceCIDR"}},
				{GroupVersion: "networking.k8s.io/v1", Kinds: []string{"IPAddress", "ServiceCIDR", "Ingress"}}},
			target: "1.37",
			removals: []APIRemoval{{GroupVersion: "networking.k8s.io/v1beta1", Whole: true, Kinds: []RemovedKind{
				{Kind: "IPAddress", Resource: "ipaddresses", Deprecated: "1.34", Removed: "1.37"},
				{Kind: "ServiceCIDR", Resource: "servicecidrs", Deprecated: "1.34", Removed: "1.37"},
			}}},
			messages: []string{"the cluster serves networking.k8s.io/v1beta1; 1.37 stops serving it (no replacement recorded)"},
		},
		{
			name: "CRDs and aggregated APIs are not covered; an unknown built-in version, an unknown kind and a bad group version are unknown",
			served: []ServedGroupVersion{
				{GroupVersion: "cilium.io/v2", Kinds: []string{"CiliumNetworkPolicy"}},
				{GroupVersion: "metrics.k8s.io/v1beta1", Kinds: []string{"NodeMetrics"}},
				{GroupVersion: "autoscaling/v2beta2", Kinds: []string{"HorizontalPodAutoscaler"}},
				{GroupVersion: "apps/v1", Kinds: []string{"Deployment", "FancySet"}},
				{GroupVersion: "a/b/c"},
				{GroupVersion: ""},
				{GroupVersion: "/v1"},
			},
			target: "1.30",
			unknown: []APIRemovalUnknown{
				{GroupVersion: "", Reason: `discovery listed "", which is not a group version (GROUP/VERSION or VERSION)`},
				{GroupVersion: "/v1", Reason: `discovery listed "/v1", which is not a group version (GROUP/VERSION or VERSION)`},
				{GroupVersion: "a/b/c", Reason: `discovery listed "a/b/c", which is not a group version (GROUP/VERSION or VERSION)`},
				{GroupVersion: "apps/v1", Kind: "FancySet", Reason: "k8s.io/api v0.37.2 does not hold kind FancySet of apps/v1: whether 1.30 serves it is not known here"},
				{GroupVersion: "autoscaling/v2beta2", Reason: "k8s.io/api v0.37.2 holds group autoscaling but not its version v2beta2: whether 1.30 serves it is not known here"},
			},
			notCov: []string{"cilium.io/v2", "metrics.k8s.io/v1beta1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := APIRemovals(tt.served, ParseVersion(tt.target))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Beyond != tt.beyond || rep.Horizon != "1.37" || rep.Source != "k8s.io/api v0.37.2" || rep.Target != ParseVersion(tt.target).MinorString() {
				t.Errorf("report head %q %q %q beyond %v; want target %s, 1.37, k8s.io/api v0.37.2, beyond %v", rep.Target, rep.Horizon, rep.Source, rep.Beyond, tt.target, tt.beyond)
			}
			want := tt.removals
			if want == nil {
				want = []APIRemoval{}
			}
			for i := range want {
				want[i].Target = rep.Target
			}
			if !reflect.DeepEqual(rep.Removals, want) {
				t.Errorf("removals\n got %+v\nwant %+v", rep.Removals, want)
			}
			var msgs []string
			for _, r := range rep.Removals {
				msgs = append(msgs, r.Message())
			}
			if !reflect.DeepEqual(msgs, tt.messages) {
				t.Errorf("messages\n got %q\nwant %q", msgs, tt.messages)
			}
			unknown := tt.unknown
			if unknown == nil {
				unknown = []APIRemovalUnknown{}
			}
			if !reflect.DeepEqual(rep.Unknown, unknown) {
				t.Errorf("unknown\n got %+v\nwant %+v", rep.Unknown, unknown)
			}
			notCov := tt.notCov
			if notCov == nil {
				notCov = []string{}
			}
			if !reflect.DeepEqual(rep.NotCovered, notCov) {
				t.Errorf("not covered %q, want %q", rep.NotCovered, notCov)
			}
		})
	}
}

// TestAPIRemovalsBeyondHorizon: past the table's horizon the report says
// so, and a removal the table plans past the horizon is marked planned.
func TestAPIRemovalsBeyondHorizon(t *testing.T) {
	_, horizon := APILifecycleSource()
	next := ParseVersion(horizon.MinorString())
	next.Minor++
	next.Raw = ""
	// A served kind whose planned removal is the minor after the horizon.
	var planned APILifecycle
	for _, r := range apiLifecycleTable {
		if r.Removed == next.MinorString() && !strings.HasSuffix(r.Kind, "List") {
			planned = r
			break
		}
	}
	if planned.Kind == "" {
		t.Skipf("the table plans no removal in %s", next.MinorString())
	}
	gv := GroupVersionKind{planned.Group, planned.Version, planned.Kind}.GroupVersion()
	served := []ServedGroupVersion{{GroupVersion: gv, Kinds: []string{planned.Kind}}}

	rep, err := APIRemovals(served, next)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Beyond {
		t.Errorf("target %s past horizon %s: Beyond false", next.MinorString(), horizon.MinorString())
	}
	if len(rep.Removals) != 1 || len(rep.Removals[0].Kinds) != 1 || !rep.Removals[0].Kinds[0].Planned {
		t.Fatalf("removals %+v: want %s %s, planned", rep.Removals, gv, planned.Kind)
	}
	msg := rep.Removals[0].Message()
	if !strings.Contains(msg, next.MinorString()+" is to stop serving it, as k8s.io/api v0.37.2 plans") {
		t.Errorf("message %q does not say the removal is planned", msg)
	}

	// At the horizon itself: not beyond, and the planned removal is not yet.
	rep, err = APIRemovals(served, horizon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Beyond || len(rep.Removals) != 0 {
		t.Errorf("at the horizon: beyond %v, removals %+v; want false, none", rep.Beyond, rep.Removals)
	}

	// Far beyond, with nothing the table knows removed: still Beyond, never "none".
	rep, err = APIRemovals([]ServedGroupVersion{{GroupVersion: "apps/v1", Kinds: []string{"Deployment"}}}, ParseVersion("1.45"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Beyond || len(rep.Removals) != 0 {
		t.Errorf("1.45: beyond %v, removals %+v; want true, none known", rep.Beyond, rep.Removals)
	}
}

func TestAPIRemovalsUnknownTarget(t *testing.T) {
	for _, target := range []string{"", "latest", "v0.0.0"} {
		if _, err := APIRemovals(nil, ParseVersion(target)); err == nil {
			t.Errorf("target %q: no error", target)
		}
	}
}

func TestSplitGroupVersion(t *testing.T) {
	tests := []struct {
		in, group, version string
		ok                 bool
	}{
		{"v1", "", "v1", true},
		{"apps/v1", "apps", "v1", true},
		{"flowcontrol.apiserver.k8s.io/v1beta3", "flowcontrol.apiserver.k8s.io", "v1beta3", true},
		{"", "", "", false},
		{"/v1", "", "", false},
		{"apps/", "", "", false},
		{"a/b/c", "", "", false},
		{"apps/v 1", "", "", false},
	}
	for _, tt := range tests {
		g, v, ok := splitGroupVersion(tt.in)
		if g != tt.group || v != tt.version || ok != tt.ok {
			t.Errorf("splitGroupVersion(%q) = %q, %q, %v; want %q, %q, %v", tt.in, g, v, ok, tt.group, tt.version, tt.ok)
		}
	}
}

func TestReplacementWords(t *testing.T) {
	tests := []struct {
		group string
		k     RemovedKind
		want  string
	}{
		{"flowcontrol.apiserver.k8s.io", RemovedKind{Kind: "FlowSchema", Replacement: GroupVersionKind{"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"}}, "use v1"},
		{"extensions", RemovedKind{Kind: "Ingress", Replacement: GroupVersionKind{"networking.k8s.io", "v1", "Ingress"}}, "use networking.k8s.io/v1"},
		{"", RemovedKind{Kind: "Endpoints", Replacement: GroupVersionKind{"discovery.k8s.io", "v1", "EndpointSlice"}}, "use discovery.k8s.io/v1 EndpointSlice"},
		{"", RemovedKind{Kind: "Thing", Replacement: GroupVersionKind{"", "v2", "Thing"}}, "use v2"},
		{"apps", RemovedKind{Kind: "Scale"}, "no replacement recorded"},
	}
	for _, tt := range tests {
		if got := replacementWords(tt.group, tt.k); got != tt.want {
			t.Errorf("replacementWords(%q, %+v) = %q, want %q", tt.group, tt.k, got, tt.want)
		}
	}
}
