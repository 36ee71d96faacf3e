package health

import (
	"slices"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

// namedUp is a cluster where every named workload of def runs available in
// its first namespace (a pattern's '*' made "x"), with the layer's CRD
// groups and a StorageClass of each provisioner, and extra beside them.
func namedUp(def topology.LayerDef, extra ...topology.WorkloadState) topology.ClusterFacts {
	var ws []topology.WorkloadState
	nss := map[string]bool{}
	for _, w := range def.Workloads {
		ns := w.Namespace
		if ns == "" {
			ns = def.Namespaces[0]
		}
		nss[ns] = true
		ws = append(ws, topology.WorkloadState{Kind: w.Kind, Namespace: ns, Name: strings.ReplaceAll(w.Name, "*", "x"), Desired: 1, Ready: 1})
	}
	for _, w := range extra {
		nss[w.Namespace] = true
		ws = append(ws, w)
	}
	var read []string
	for _, ns := range def.Namespaces {
		read = append(read, ns)
	}
	for ns := range nss {
		if !slices.Contains(read, ns) {
			read = append(read, ns)
		}
	}
	var scs []topology.StorageClass
	for i, p := range def.Provisioners {
		scs = append(scs, topology.StorageClass{Name: "sc" + string(rune('a'+i)), Provisioner: p})
	}
	return topology.ClusterFacts{
		Namespaces:         topology.KnownFact(read),
		CRDGroups:          topology.KnownFact(append([]string{}, def.CRDGroups...)),
		StorageClasses:     topology.KnownFact(scs),
		Workloads:          topology.KnownFact(ws),
		WorkloadNamespaces: read,
	}
}

// memberOf is a workload that belongs to def by its Members: in a namespace
// it owns, else labelled part-of it in its first namespace.
func memberOf(def topology.LayerDef, name string, ready, desired int32) (topology.WorkloadState, bool) {
	switch {
	case len(def.Members.Namespaces) > 0:
		return topology.WorkloadState{Kind: topology.KindDeployment, Namespace: def.Members.Namespaces[0], Name: name, Ready: ready, Desired: desired}, true
	case len(def.Members.PartOf) > 0:
		return topology.WorkloadState{Kind: topology.KindDaemonSet, Namespace: def.Namespaces[0], Name: name, Ready: ready, Desired: desired, PartOf: def.Members.PartOf[0]}, true
	}
	return topology.WorkloadState{}, false
}

// TestEveryLayerIsAllOfItsWorkloads: for every catalog layer, a workload
// that belongs to it beyond its named ones and is not available makes the
// layer degraded, named in the reason and in Detail; available, it is
// counted and listed; scaled to zero, listed and not a fault; a workload
// of a shared namespace that does not belong to it changes nothing.
func TestEveryLayerIsAllOfItsWorkloads(t *testing.T) {
	for _, def := range topology.Catalog() {
		if len(def.Workloads) == 0 {
			continue
		}
		down, ok := memberOf(def, "extra-member", 0, 1)
		if !ok {
			t.Errorf("%s: declares no members (Members): its workloads beyond the named ones are never judged", def.Name)
			continue
		}
		t.Run(def.Name, func(t *testing.T) {
			base := JudgeLayer(def, namedUp(def), factsFor(def, nil), true)
			j := JudgeLayer(def, namedUp(def, down), factsFor(def, nil), true)
			want := describe(down)
			if j.State.Health != topology.Degraded || !strings.Contains(j.State.Reason, want) {
				t.Errorf("a member down: %s %q, want degraded naming %q (without it: %s %q)", j.State.Health, j.State.Reason, want, base.State.Health, base.State.Reason)
			}
			if !slices.Contains(judged(j).Detail, want) {
				t.Errorf("Detail %q does not list %q", judged(j).Detail, want)
			}
			up, _ := memberOf(def, "extra-member", 2, 2)
			j = JudgeLayer(def, namedUp(def, up), factsFor(def, nil), true)
			if j.State.Health != base.State.Health || !slices.Contains(judged(j).Detail, describe(up)) {
				t.Errorf("a member available: %s %q, detail %q; want %s as without it, and it listed", j.State.Health, j.State.Reason, judged(j).Detail, base.State.Health)
			}
			zero, _ := memberOf(def, "extra-member", 0, 0)
			if j := JudgeLayer(def, namedUp(def, zero), factsFor(def, nil), true); j.State.Health != base.State.Health {
				t.Errorf("a member scaled to zero: %s %q, want %s", j.State.Health, j.State.Reason, base.State.Health)
			}
			stranger := topology.WorkloadState{Kind: topology.KindDeployment, Namespace: "kube-system", Name: "coredns", Ready: 0, Desired: 2, PartOf: "someone-else"}
			if j := JudgeLayer(def, namedUp(def, stranger), factsFor(def, nil), true); j.State.Health != base.State.Health || strings.Contains(j.State.Reason, "coredns") {
				t.Errorf("a workload of another application down in kube-system: %s %q, want %s", j.State.Health, j.State.Reason, base.State.Health)
			}
		})
	}
}

// TestMembersAsSeenOnClusters are the cases seen: argocd-redis and
// argocd-applicationset-controller down beside the three named Argo CD
// workloads; cilium-envoy (part-of cilium, kube-system) at 3/4; rook-ceph's
// csi-rbdplugin DaemonSet at 3/4.
func TestMembersAsSeenOnClusters(t *testing.T) {
	for _, tc := range []struct {
		layer string
		extra []topology.WorkloadState
		want  []string
	}{
		{"argocd", []topology.WorkloadState{
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-redis", Ready: 0, Desired: 1, PartOf: "argocd"},
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-applicationset-controller", Ready: 0, Desired: 1, PartOf: "argocd"},
		}, []string{"argocd/argocd-redis 0/1 available", "argocd/argocd-applicationset-controller 0/1 available"}},
		{"cilium", []topology.WorkloadState{{Kind: topology.KindDaemonSet, Namespace: "kube-system", Name: "cilium-envoy", Ready: 3, Desired: 4, PartOf: "cilium"}},
			[]string{"kube-system/cilium-envoy 3/4 available"}},
		{"rook-ceph", []topology.WorkloadState{{Kind: topology.KindDaemonSet, Namespace: "rook-ceph", Name: "csi-rbdplugin", Ready: 3, Desired: 4}},
			[]string{"rook-ceph/csi-rbdplugin 3/4 available"}},
	} {
		def, _ := topology.CatalogLayer(tc.layer)
		st := JudgeWorkloads(def, namedUp(def, tc.extra...), true)
		if st.Health != topology.Degraded {
			t.Errorf("%s: %s %q, want degraded", tc.layer, st.Health, st.Reason)
		}
		for _, w := range tc.want {
			if !strings.Contains(st.Reason, w) || !slices.Contains(st.Detail, w) {
				t.Errorf("%s: reason %q, detail %q: want %q in both", tc.layer, st.Reason, st.Detail, w)
			}
		}
	}
}

// TestMembersNotReadAreUnknown: a namespace the layer's members may be in
// whose list failed leaves the layer unknown with that list's code, even
// when every named workload was found available elsewhere.
func TestMembersNotReadAreUnknown(t *testing.T) {
	def, _ := topology.CatalogLayer("external-secrets")
	facts := namedUp(def)
	// The named workloads are in external-secrets; external-secrets-system
	// (a namespace the layer owns) exists and could not be listed.
	facts.WorkloadNamespaces = []string{"external-secrets"}
	facts.WorkloadErrors = map[string]topology.Why{"external-secrets-system": topology.Because(topology.ReasonForbidden, "deployments in external-secrets-system: forbidden")}
	st := JudgeWorkloads(def, facts, true)
	if st.Health != topology.Unknown || st.Code != topology.ReasonForbidden || !strings.Contains(st.Reason, "external-secrets-system: forbidden") {
		t.Errorf("%s %s %q, want unknown, forbidden, naming the namespace", st.Health, st.Code, st.Reason)
	}
}
