package upgrade

import (
	"strings"
	"testing"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// TestLayerSupportTable checks the table's shape: each entry a catalog
// layer whose main workload is one of its catalog workloads, each row a
// release and a range of known minors in order, with its source.
func TestLayerSupportTable(t *testing.T) {
	want := []string{"cilium", "rook-ceph", "cnpg", "kube-prometheus-stack", "argocd", "flux", "cert-manager", "longhorn", "metallb", "ingress-nginx", "external-secrets"}
	table := LayerSupportTable()
	if len(table) != len(want) {
		t.Fatalf("%d entries, want %d (%v)", len(table), len(want), want)
	}
	for i, s := range table {
		if s.Layer != want[i] {
			t.Errorf("entry %d is %q, want %q", i, s.Layer, want[i])
		}
		def, ok := lookupCatalog(s.Layer)
		if !ok {
			t.Errorf("%s: not a catalog layer", s.Layer)
			continue
		}
		found := false
		for _, w := range def.Workloads {
			if w.Kind == s.Main.Kind && w.Name == s.Main.Name {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: main workload %s %s is not one of its catalog workloads", s.Layer, s.Main.Kind, s.Main.Name)
		}
		if s.Main.Container == "" || s.Main.Source == "" || s.AsOf.IsZero() {
			t.Errorf("%s: container %q, source %q, as of %v: all are needed", s.Layer, s.Main.Container, s.Main.Source, s.AsOf)
		}
		if !s.Main.ImageIsRelease && s.Main.ImageNote == "" {
			t.Errorf("%s: the image is not the release, and no note says why", s.Layer)
		}
		if len(s.Releases) == 0 && s.Note == "" {
			t.Errorf("%s: no rows, and no note says why", s.Layer)
		}
		if len(s.Releases) > 0 && s.Older == "" {
			t.Errorf("%s: no word on the releases before its first row (Older)", s.Layer)
		}
		var prev kube.Version
		for _, r := range s.Releases {
			rel, min := kube.ParseVersion(r.Release), kube.ParseVersion(r.Min)
			if !rel.Known || !min.Known || min.HasPatch || r.Source == "" || r.Claim == "" {
				t.Errorf("%s %s: release %q, min %q, source %q, claim %q", s.Layer, r.Release, r.Release, r.Min, r.Source, r.Claim)
			}
			if r.Max != "" {
				if max := kube.ParseVersion(r.Max); !max.Known || max.HasPatch || kube.CompareMinor(min, max) > 0 {
					t.Errorf("%s %s: range %s–%s", s.Layer, r.Release, r.Min, r.Max)
				}
			}
			if prev.Known && kube.CompareVersions(prev, rel) >= 0 {
				t.Errorf("%s: release %s after %s: rows are oldest first, each once", s.Layer, r.Release, prev.Raw)
			}
			prev = rel
		}
	}
}

func lookupCatalog(name string) (topology.LayerDef, bool) {
	for _, d := range topology.Catalog() {
		if d.Name == name {
			return d, true
		}
	}
	return topology.LayerDef{}, false
}

func TestReleaseFromImage(t *testing.T) {
	tests := []struct {
		image, want, reason string
	}{
		{"quay.io/cilium/cilium:v1.16.3", "1.16.3", ""},
		{"quay.io/cilium/cilium:v1.19.4@sha256:2eb67991eaa9368ba199c2fac2c573cb0ffdeb79184533344f42fc9a7ff6af3c", "1.19.4", ""},
		{"ghcr.io/cloudnative-pg/cloudnative-pg:1.27.0", "1.27.0", ""},
		{"registry.k8s.io/ingress-nginx/controller:v1.11.1@sha256:e6439a12b52076965928e83b7b56aae6731231677b01e81818bce7fa5c60161a", "1.11.1", ""},
		{"localhost:5000/rook/ceph:v1.17.2", "1.17.2", ""},
		{"rook/ceph:v1.18.0-rc.1", "1.18.0-rc.1", ""},
		{"quay.io/cilium/cilium@sha256:2eb67991eaa9368ba199c2fac2c573cb0ffdeb79184533344f42fc9a7ff6af3c", "", "named by digest only"},
		{"quay.io/cilium/cilium:latest", "", `tag "latest" is not a release version`},
		{"quay.io/cilium/cilium", "", "has no tag (it pulls latest)"},
		{"quay.io/cilium/cilium:stable", "", `tag "stable" is not a release version`},
		{"Quay.io/Cilium:v1", "", "is not an image reference"},
		{"", "", "is not an image reference"},
	}
	for _, tt := range tests {
		got := ReleaseFromImage(tt.image)
		if tt.want != "" {
			if !got.Known || got.Canonical() != tt.want {
				t.Errorf("ReleaseFromImage(%q) = %q (known %v, %s), want %s", tt.image, got.Canonical(), got.Known, got.Reason, tt.want)
			}
			continue
		}
		if got.Known || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("ReleaseFromImage(%q): known %v, reason %q; want unknown, %q", tt.image, got.Known, got.Reason, tt.reason)
		}
	}
}

func TestJudgeLayerSupport(t *testing.T) {
	tests := []struct {
		layer, release, k8s string
		status              LayerSupportStatus
		rangeS, message     string
	}{
		{"cilium", "1.19.1", "1.33", LayerSupported, "1.32–1.35",
			"cilium 1.19.1 is e2e tested with Kubernetes 1.32–1.35, 1.33 included"},
		{"cilium", "1.19.1", "v1.35.4", LayerSupported, "1.32–1.35",
			"cilium 1.19.1 is e2e tested with Kubernetes 1.32–1.35, 1.35 included"},
		{"cilium", "1.18.3", "1.34", LayerNotSupported, "1.30–1.33",
			"cilium 1.18.3 is e2e tested with Kubernetes 1.30–1.33, not 1.34; upgrade cilium first"},
		{"cilium", "1.19.0", "1.31", LayerNotSupported, "1.32–1.35",
			"cilium 1.19.0 is e2e tested with Kubernetes 1.32–1.35, not 1.31"},
		// A release older than the table's first row used to be unknown:
		// the pages state it, and it has its row.
		{"cilium", "1.16.3", "1.38", LayerNotSupported, "1.27–1.30",
			"cilium 1.16.3 is e2e tested with Kubernetes 1.27–1.30, not 1.38; upgrade cilium first"},
		{"cilium", "1.16.3", "1.29", LayerSupported, "1.27–1.30",
			"cilium 1.16.3 is e2e tested with Kubernetes 1.27–1.30, 1.29 included"},
		{"cilium", "1.15.7", "1.38", LayerSupportUnknown, "",
			"cilium 1.15.7 is older than every release this nestor's support table for cilium (as of 2026-11-30) holds, the oldest 1.16: Cilium's compatibility pages of the releases before 1.16 were not read; whether it supports Kubernetes 1.38 is not known here"},
		{"cilium", "1.17.2", "1.38", LayerSupportUnknown, "",
			"this nestor's support table for cilium (as of 2026-11-30) has no row for 1.17.2 (the nearest rows are 1.16 and 1.18): whether it supports Kubernetes 1.38 is not known here"},
		{"cilium", "1.20.1", "1.38", LayerSupportUnknown, "",
			"cilium 1.20.1 is newer than every release this nestor's support table for cilium (as of 2026-11-30) holds, the newest 1.19: its range is not in the table; whether it supports Kubernetes 1.38 is not known here"},
		{"argocd", "2.8.4", "1.38", LayerNotSupported, "1.24–1.27",
			"argocd 2.8.4 is tested with Kubernetes 1.24–1.27, not 1.38; upgrade argocd first"},
		{"argocd", "2.7.18", "1.38", LayerSupportUnknown, "",
			"argocd 2.7.18 is older than every release this nestor's support table for argocd (as of 2026-11-30) holds, the oldest 2.8: before 2.8 Argo CD's documentation names no Kubernetes minors per release: it says its releases are supported on the versions Kubernetes itself supports (docs/operator-manual/installation.md, Supported versions, at v2.7.18); whether it supports Kubernetes 1.38 is not known here"},
		{"cert-manager", "0.16.1", "1.21", LayerSupported, "1.11–1.21",
			"cert-manager 0.16.1 is compatible with Kubernetes 1.11–1.21, 1.21 included"},
		{"rook-ceph", "1.9.13", "1.38", LayerMinimumMet, "1.17 or newer",
			"rook-ceph 1.9.13 supports Kubernetes 1.17 or newer and publishes no upper bound: 1.38 is not judged beyond that"},
		{"rook-ceph", "1.12.9", "1.38", LayerNotSupported, "1.22–1.28",
			"rook-ceph 1.12.9 supports Kubernetes 1.22–1.28, not 1.38; upgrade rook-ceph first"},
		{"cnpg", "1.15.1", "1.24", LayerNotSupported, "1.21–1.23",
			"cnpg 1.15.1 is compatible with Kubernetes 1.21–1.23, not 1.24; upgrade cnpg first"},
		{"longhorn", "1.2.6", "1.25", LayerNotSupported, "1.18–1.24",
			"longhorn 1.2.6 is installable (its Helm chart's kubeVersion) on Kubernetes 1.18–1.24, not 1.25; upgrade longhorn first"},
		{"cnpg", "1.25.2", "1.33", LayerNotSupported, "1.29–1.32",
			"cnpg 1.25.2 supports Kubernetes 1.29–1.32, not 1.33 (1.33 tested, but not supported); upgrade cnpg first"},
		{"external-secrets", "0.19.0", "1.33", LayerSupported, "1.33",
			"external-secrets 0.19.0 is tested with Kubernetes 1.33, 1.33 included"},
		{"external-secrets", "0.19.0", "1.34", LayerNotSupported, "1.33",
			"external-secrets 0.19.0 is tested with Kubernetes 1.33, not 1.34; upgrade external-secrets first"},
		{"longhorn", "1.7.2", "1.33", LayerMinimumMet, "1.21 or newer",
			"longhorn 1.7.2 requires Kubernetes 1.21 or newer and publishes no upper bound: 1.33 is not judged beyond that"},
		{"longhorn", "1.7.2", "1.20", LayerNotSupported, "1.21 or newer",
			"longhorn 1.7.2 requires Kubernetes 1.21 or newer, not 1.20"},
		// ingress-nginx: rows per patch; another patch of the minor is unknown.
		{"ingress-nginx", "1.11.1", "1.31", LayerNotSupported, "1.26–1.30",
			"ingress-nginx 1.11.1 is e2e tested with Kubernetes 1.26–1.30, not 1.31; upgrade ingress-nginx first"},
		{"ingress-nginx", "1.11.2", "1.30", LayerSupported, "1.26–1.30",
			"ingress-nginx 1.11.2 is e2e tested with Kubernetes 1.26–1.30, 1.30 included"},
		{"ingress-nginx", "1.11.9", "1.30", LayerSupportUnknown, "",
			"this nestor's support table for ingress-nginx (as of 2026-11-30) has no row for 1.11.9 (of 1.11 it holds 1.11.0 to 1.11.8 only): whether it supports Kubernetes 1.30 is not known here"},
		{"ingress-nginx", "1.8.1", "1.27", LayerSupportUnknown, "",
			"this nestor's support table for ingress-nginx (as of 2026-11-30) has no row for 1.8.1 (of 1.8 it holds 1.8.4 only): whether it supports Kubernetes 1.27 is not known here"},
		{"ingress-nginx", "1.3.0", "1.24", LayerSupportUnknown, "",
			"ingress-nginx 1.3.0 is older than every release this nestor's support table for ingress-nginx (as of 2026-11-30) holds, the oldest 1.3.1: ingress-nginx's Supported Versions table starts at v1.3.1; whether it supports Kubernetes 1.24 is not known here"},
		{"ingress-nginx", "1.15.2", "1.35", LayerSupportUnknown, "",
			"ingress-nginx 1.15.2 is newer than every release this nestor's support table for ingress-nginx (as of 2026-11-30) holds, the newest 1.15.1: its range is not in the table; whether it supports Kubernetes 1.35 is not known here"},
		{"metallb", "0.14.9", "1.33", LayerMinimumMet, "1.13 or newer",
			"metallb 0.14.9 requires Kubernetes 1.13 or newer and publishes no upper bound: 1.33 is not judged beyond that"},
		{"kube-prometheus-stack", "65.1.0", "1.33", LayerSupportUnknown, "",
			"this nestor holds no Kubernetes support rows for kube-prometheus-stack (No per-release Kubernetes table was found: Prometheus Operator states that the Kubernetes versions it supports are those its client-go supports (prometheus-operator Documentation/compatibility).): whether it supports Kubernetes 1.33 is not known here"},
		{"calico", "3.29.0", "1.33", LayerSupportUnknown, "",
			"this nestor holds no Kubernetes support table for calico"},
	}
	for _, tt := range tests {
		got := JudgeLayerSupport(tt.layer, kube.ParseVersion(tt.release), kube.ParseVersion(tt.k8s))
		if got.Status != tt.status || got.Range != tt.rangeS || got.Message != tt.message || got.Layer != tt.layer {
			t.Errorf("JudgeLayerSupport(%s, %s, %s)\n got %s %q %q\nwant %s %q %q", tt.layer, tt.release, tt.k8s,
				got.Status, got.Range, got.Message, tt.status, tt.rangeS, tt.message)
		}
		if (got.Status == LayerSupportUnknown) != (got.Source == "") {
			t.Errorf("%s %s: status %s with source %q: a judged verdict names its source, an unknown one none", tt.layer, tt.release, got.Status, got.Source)
		}
	}
}

func TestJudgeLayerSupportUnknownInputs(t *testing.T) {
	got := JudgeLayerSupport("cilium", ReleaseFromImage("quay.io/cilium/cilium:latest"), kube.ParseVersion("1.33"))
	if got.Status != LayerSupportUnknown || !strings.Contains(got.Message, `cilium's release is not known (image "quay.io/cilium/cilium:latest": tag "latest" is not a release version)`) {
		t.Errorf("unknown release: %s %q", got.Status, got.Message)
	}
	got = JudgeLayerSupport("cilium", kube.ParseVersion("1.19.1"), kube.ParseVersion("garbage"))
	if got.Status != LayerSupportUnknown || !strings.Contains(got.Message, "the Kubernetes version is not known") {
		t.Errorf("unknown minor: %s %q", got.Status, got.Message)
	}
}

// TestJudgeLayerSupportEdges walks every layer of the table: its first and
// last rows are judged from their own row, a release older than the first
// row is unknown and says what the project's pages state of older releases
// (Older), a release newer than the last row is unknown and says it is
// newer; none of them is ever "supported".
func TestJudgeLayerSupportEdges(t *testing.T) {
	k8s := kube.ParseVersion("1.38")
	for _, s := range LayerSupportTable() {
		if len(s.Releases) == 0 {
			got := JudgeLayerSupport(s.Layer, kube.ParseVersion("1.0.0"), k8s)
			if got.Status != LayerSupportUnknown || !strings.Contains(got.Message, s.Note) {
				t.Errorf("%s without rows: %s %q", s.Layer, got.Status, got.Message)
			}
			continue
		}
		first, last := kube.ParseVersion(s.Releases[0].Release), kube.ParseVersion(s.Releases[len(s.Releases)-1].Release)
		for _, row := range []kube.Version{first, last} {
			rel := row
			if !rel.HasPatch {
				rel = kube.ParseVersion(row.MinorString() + ".3")
			}
			if got := JudgeLayerSupport(s.Layer, rel, k8s); got.Status == LayerSupportUnknown || got.Source == "" {
				t.Errorf("%s %s (a row's release): %s %q", s.Layer, rel.Canonical(), got.Status, got.Message)
			}
		}
		older := kube.Version{Known: true, Major: first.Major, Minor: first.Minor - 1, Patch: 9, HasPatch: true}
		if first.HasPatch && first.Patch > 0 {
			older = kube.Version{Known: true, Major: first.Major, Minor: first.Minor, Patch: first.Patch - 1, HasPatch: true}
		} else if first.Minor == 0 {
			older = kube.Version{Known: true, Major: first.Major - 1, Minor: 99, Patch: 0, HasPatch: true}
		}
		got := JudgeLayerSupport(s.Layer, older, k8s)
		if got.Status != LayerSupportUnknown || got.Source != "" || !strings.Contains(got.Message, "is older than every release") || !strings.Contains(got.Message, s.Older) {
			t.Errorf("%s %s (older than the first row %s): %s %q", s.Layer, older.Canonical(), first.Raw, got.Status, got.Message)
		}
		newer := kube.Version{Known: true, Major: last.Major, Minor: last.Minor + 1, Patch: 0, HasPatch: true}
		got = JudgeLayerSupport(s.Layer, newer, k8s)
		if got.Status != LayerSupportUnknown || got.Source != "" || !strings.Contains(got.Message, "is newer than every release") || !strings.Contains(got.Message, "the newest "+last.Raw) {
			t.Errorf("%s %s (newer than the last row %s): %s %q", s.Layer, newer.Canonical(), last.Raw, got.Status, got.Message)
		}
	}
}
