package e2e

// End-to-end proofs of a kapsule cluster's offer and headroom: the built
// binary reads the provider's /cluster-types and /available-types from the
// stand-in, and etcd's size from the real kube-apiserver's /metrics
// (apiserver_storage_size_bytes) when the kubeconfig's identity may read
// it; scaleway.type is planned as a set-type step up, blocked down by the
// commitment, and refused across families.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// offerDoc is the part of preview's JSON document the offer adds.
type offerDoc struct {
	Actual struct {
		Kapsule struct {
			Types          fact[[]struct{ Name string }] `json:"cluster_types"`
			AvailableTypes fact[[]string]                `json:"available_types"`
			Etcd           struct {
				Known      bool   `json:"known"`
				Reason     string `json:"reason"`
				ReasonCode string `json:"reason_code"`
				Value      struct {
					Bytes  uint64 `json:"bytes"`
					Metric string `json:"metric"`
					Series int    `json:"series"`
				} `json:"value"`
			} `json:"etcd"`
		} `json:"kapsule"`
	} `json:"actual"`
	Plan struct {
		Steps []struct {
			Kind    string        `json:"kind"`
			Reason  string        `json:"reason"`
			Subject jsonSubject   `json:"subject"`
			Blocked []jsonSubject `json:"blocked"`
		} `json:"steps"`
		Unknowns []jsonClaim `json:"unknowns"`
		Findings []struct {
			Severity, Kind, Message string
			Subject                 jsonSubject
		} `json:"findings"`
		Headroom *struct {
			Type     string `json:"type"`
			Measures []struct {
				Name       string       `json:"name"`
				Used       fact[uint64] `json:"used"`
				Limit      fact[uint64] `json:"limit"`
				Percent    *int         `json:"percent"`
				UpperBound bool         `json:"upper_bound"`
			} `json:"measures"`
		} `json:"headroom"`
	} `json:"plan"`
}

func decodeOffer(t *testing.T, r result) offerDoc {
	t.Helper()
	var d offerDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("%v\n%s\n%s", err, r.stdout, r.stderr)
	}
	return d
}

// typedStack writes the stack declaring scaleway.type typ ("" none), read
// through kubeconfig.
func (kw *kapsuleWorld) typedStack(typ, kubeconfig string) {
	kw.t.Helper()
	p := kw.stack("1.35", kubeconfig, "")
	if typ == "" {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		kw.t.Fatal(err)
	}
	src := strings.Replace(string(data), "  api_url: "+kw.stub.URL+"\n", "  api_url: "+kw.stub.URL+"\n  type: "+typ+"\n", 1)
	kw.writeFile(p, []byte(src))
}

func (d offerDoc) setType() (string, []jsonSubject, bool) {
	for _, s := range d.Plan.Steps {
		if s.Kind == "set-type" {
			return s.Reason, s.Blocked, true
		}
	}
	return "", nil, false
}

func (d offerDoc) etcdMeasure() (used fact[uint64], percent *int, ok bool) {
	if d.Plan.Headroom == nil {
		return used, nil, false
	}
	for _, m := range d.Plan.Headroom.Measures {
		if m.Name == "etcd" {
			return m.Used, m.Percent, m.UpperBound
		}
	}
	return used, nil, false
}

func TestKapsuleOffer(t *testing.T) {
	kw := newKapsuleWorld(t)
	admin := kw.world.kubeconfig(kw.cluster, filepath.Join(kw.Home, ".kube", "lyneko-admin.config"), harness.IdentityAdmin, "")
	preview := func(asOf string, extra ...string) result {
		t.Helper()
		return kw.run(creds(), append([]string{"preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--as-of", asOf}, extra...)...)
	}

	t.Run("up, metrics forbidden: the commitment it starts, etcd unknown with why", func(t *testing.T) {
		kw.stub.ResetLog()
		kw.typedStack("kapsule-dedicated-4", "~/.kube/lyneko-apps.config")
		r := preview("2026-12-01", "--no-input", "--detailed-exitcode")
		wantCode(t, r, 2)
		wantContains(t, "preview", r.stdout,
			"offer       kapsule (mutualised): max_nodes 150, max_etcd_size 55 MB; may move to kapsule-dedicated-4, kapsule-dedicated-8, kapsule-dedicated-16",
			"headroom    nodes 4 of 150 (3%); nodes at the pools' maxima 8 of 150 (6%); nodes at the declared maxima 8 of kapsule-dedicated-4's 250 (4%)",
			"etcd unknown (/metrics: forbidden (user "+harness.UserReadOnly+" cannot get path /metrics))")
		wantLine(t, "the step up", r.stdout, quote("~ set-type cluster  (kapsule → kapsule-dedicated-4 (offered to this cluster; starts a 30-day commitment, during which the cluster cannot move to a lower type))"))
		d := decodeOffer(t, preview("2026-12-01", "-o", "json"))
		k := d.Actual.Kapsule
		if !k.Types.Known || len(k.Types.Value) != 8 || !k.AvailableTypes.Known || len(k.AvailableTypes.Value) != 4 {
			t.Errorf("types %+v available %+v", k.Types, k.AvailableTypes)
		}
		if k.Etcd.Known || k.Etcd.ReasonCode != "forbidden" {
			t.Errorf("etcd %+v, want unknown, forbidden", k.Etcd)
		}
		if used, pct, _ := d.etcdMeasure(); used.Known || pct != nil || !strings.Contains(used.Reason, "forbidden") {
			t.Errorf("headroom's etcd %+v %v: never a figure when not read", used, pct)
		}
		if _, _, ok := d.setType(); !ok {
			t.Errorf("no set-type step: %+v", d.Plan.Steps)
		}
		kw.wantOnlyReads(t)
		reads := map[string]bool{}
		for _, q := range kw.stub.Log() {
			reads[q.Path] = true
		}
		for _, p := range []string{"/k8s/v1/regions/fr-par/cluster-types", "/k8s/v1/regions/fr-par/clusters/" + kw.data.Cluster.ID + "/available-types"} {
			if !reads[p] {
				t.Errorf("%s was not read", p)
			}
		}
	})

	t.Run("metrics readable: etcd measured from apiserver_storage_size_bytes, an upper bound", func(t *testing.T) {
		kw.typedStack("", admin)
		r := preview("2026-12-01", "--no-input")
		wantCode(t, r, 0)
		wantLine(t, "etcd measured", r.stdout, `(?m)^\s+etcd [0-9.]+ MB of 55 MB \([0-9]+%, an upper bound: the database file as allocated, which compaction does not shrink\)$`)
		d := decodeOffer(t, preview("2026-12-01", "-o", "json"))
		e := d.Actual.Kapsule.Etcd
		if !e.Known || e.Value.Bytes == 0 || e.Value.Metric != "apiserver_storage_size_bytes" || e.Value.Series < 1 {
			t.Fatalf("etcd %+v, want measured from apiserver_storage_size_bytes", e)
		}
		if used, pct, upper := d.etcdMeasure(); !used.Known || used.Value != e.Value.Bytes || pct == nil || !upper {
			t.Errorf("headroom's etcd %+v %v upper %v", used, pct, upper)
		}
	})

	t.Run("down to the mutualised plane: etcd under its quota when measured, unknown when not", func(t *testing.T) {
		kw.data.Cluster.Type = "kapsule-dedicated-4"
		kw.data.Cluster.CommitmentEndsAt = time.Date(2026, 10, 1, 9, 14, 0, 0, time.UTC)
		kw.stub.Serve(kw.data)
		kw.typedStack("kapsule", admin)
		d := decodeOffer(t, preview("2026-12-01", "-o", "json"))
		reason, blocked, ok := d.setType()
		if !ok || len(blocked) != 0 || !strings.Contains(reason, "kapsule-dedicated-4 → kapsule (a lower type; no commitment binds it; etcd ") || !strings.Contains(reason, "under kapsule's quota of 55 MB") {
			t.Errorf("set-type %q blocked %v", reason, blocked)
		}
		kw.typedStack("kapsule", "~/.kube/lyneko-apps.config")
		r := preview("2026-12-01", "--no-input", "--detailed-exitcode")
		wantCode(t, r, 1) // the step rests on a part not read: never in sync, never a plain change
		wantContains(t, "unknown", r.stdout, "needs etcd under 55 MB: not measured",
			"cluster type: whether etcd fits kapsule's quota of 55 MB, which the move to the mutualised plane needs: etcd's size was not measured (/metrics: forbidden")
		d = decodeOffer(t, preview("2026-12-01", "-o", "json"))
		var found bool
		for _, u := range d.Plan.Unknowns {
			found = found || (u.Subject.Key == "scaleway.type" && u.Reason == "forbidden")
		}
		if !found {
			t.Errorf("no unknown at scaleway.type: %+v", d.Plan.Unknowns)
		}
	})

	t.Run("down during the commitment: blocked until commitment_ends_at", func(t *testing.T) {
		kw.data.Cluster.Type = "kapsule-dedicated-8"
		kw.data.Cluster.CommitmentEndsAt = time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)
		kw.stub.Serve(kw.data)
		kw.typedStack("kapsule-dedicated-4", admin)
		r := preview("2026-12-01", "--no-input")
		wantCode(t, r, 0)
		wantContains(t, "blocked", r.stdout,
			"offer       kapsule-dedicated-8 (dedicated; commitment until 2027-01-15): max_nodes 500, max_etcd_size 200 MB; may move to kapsule-dedicated-16",
			"~ set-type cluster  (kapsule-dedicated-8 → kapsule-dedicated-4 (a lower type); blocked: the commitment of kapsule-dedicated-8 runs until 2027-01-15 (commitment_ends_at): the provider refuses a lower type before then; preview again after 2027-01-15)")
		d := decodeOffer(t, preview("2026-12-01", "-o", "json"))
		if _, blocked, _ := d.setType(); len(blocked) != 1 || blocked[0].Key != "scaleway.type" || !strings.Contains(blocked[0].Text, "until 2027-01-15") {
			t.Errorf("blocked by %+v", blocked)
		}
		// Judged after that date, the same move is a plain step.
		d = decodeOffer(t, preview("2027-02-01", "-o", "json"))
		if reason, blocked, ok := d.setType(); !ok || len(blocked) != 0 || !strings.Contains(reason, "no commitment binds it") {
			t.Errorf("after the commitment: %q %v", reason, blocked)
		}
	})

	t.Run("across families: not a step, an error the provider cannot do in place", func(t *testing.T) {
		kw.data.Cluster.Type, kw.data.Cluster.CommitmentEndsAt = "kapsule", time.Time{}
		kw.stub.Serve(kw.data)
		kw.typedStack("multicloud", admin)
		r := preview("2026-12-01", "--no-input", "--fail-on", "error")
		wantCode(t, r, 3)
		wantContains(t, "cross-family", r.stdout, "error    cluster type: scaleway.type multicloud is of the multicloud family, the cluster is kapsule (kapsule): the provider does not move a cluster across families in place")
		wantNotContains(t, "cross-family", r.stdout, "set-type")
	})

	t.Run("fleet: the headroom column and field; the role covers metrics", func(t *testing.T) {
		kw.typedStack("", "~/.kube/lyneko-apps.config")
		r := kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--as-of", "2026-12-01")
		wantLine(t, "fleet", r.stdout, `(?m)^lyneko-apps\s+kapsule\s+.*\s+nodes 6%, etcd \?\s+0\s+0\s+0$`)
		kw.typedStack("", admin)
		r = kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--as-of", "2026-12-01")
		wantLine(t, "fleet, etcd measured", r.stdout, `(?m)^lyneko-apps\s+kapsule\s+.*\s+nodes 6%, etcd [0-9]+%\s+0\s+0\s+0$`)
		j := kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--as-of", "2026-12-01", "-o", "json")
		var f struct {
			Stacks []struct {
				Headroom *struct{ Type string } `json:"headroom"`
			} `json:"stacks"`
		}
		if err := json.Unmarshal([]byte(j.stdout), &f); err != nil || len(f.Stacks) != 1 || f.Stacks[0].Headroom == nil || f.Stacks[0].Headroom.Type != "kapsule" {
			t.Errorf("fleet json headroom: %v %+v", err, f)
		}
		rb := kw.run(creds(), "rbac", "--stacks", kw.Stacks, "lyneko-apps")
		wantCode(t, rb, 0)
		wantContains(t, "rbac", rb.stdout, "- nonResourceURLs: [/version, /metrics", "apiserver_storage_size_bytes: the size of etcd against the cluster type's max_etcd_size")
	})
}
