package views

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/kapsule"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/tests/scwstub"
	"nestor.dev/nestor/topology"
)

// The kapsule report: waiting counts as not in sync (exit 2 with
// --detailed-exitcode), the calendar is judged at the date passed in, and
// the human view draws the cluster, pools, calendar and waiting lines.
func TestKapsuleReport(t *testing.T) {
	const secret = "d3c1a2b4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
	s := scwstub.Start(scwstub.Options{Region: "fr-par", ClusterID: scwstub.ClusterID, SecretKey: secret})
	defer s.Close()
	w := scwstub.Typical("fr-par", "https://"+scwstub.ClusterID+".api.k8s.fr-par.scw.cloud:6443")
	w.Pools[1].Version, w.Pools[1].Status = "1.34.6", "scaling"
	s.Serve(w)
	dir := t.TempDir()
	p := filepath.Join(dir, "lyneko-apps.yaml")
	src := "name: lyneko-apps\ntarget_kind: kapsule\nscaleway: {region: fr-par, cluster_id: " + scwstub.ClusterID + ", api_url: \"" + s.URL + "\"}\n" +
		"kubernetes: {version: \"1.35\"}\npools:\n  - {name: default, node_type: PRO2-XXS, size: 3}\n  - {name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 5}}\nlayers: []\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := stacks.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"SCW_ACCESS_KEY": "SCWABCDEFGHJKMNPQRST", "SCW_SECRET_KEY": secret}[k]
		return v, ok
	}
	op, err := probes.Open(context.Background(), kapsule.Kind{}, tp, probes.OpenOptions{Env: env, Home: dir, UserAgent: "nestor/test"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := action.ReadReport(context.Background(), kapsule.Kind{}, op, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	// Read through the provider alone with nothing declared inside the
	// cluster: the in-cluster part unread is no unknown, the stack waits.
	if r.Summary.Waiting != 1 || r.Summary.InSync || r.Summary.Unknown != 0 || r.Outcome() != topology.OutcomeWaiting {
		t.Errorf("summary = %+v, status %s", r.Summary, r.Outcome())
	}
	var b bytes.Buffer
	Preview(&b, r, PreviewOptions{}, func(s string) string { return "nestor " + s })
	out := b.String()
	for _, want := range []string{
		"Target: cluster " + scwstub.ClusterID + " in fr-par via " + s.URL,
		"(access key SCWABCD…QRST)",
		"burst    scaling  1.34.6",
		"warning 1.34 (pool burst): deprecated by the provider since 2026-09-01",
		"warning 1.34 (pool burst): end of life in 44 days (2026-12-15)",
		"…  waiting: pool burst: scaling",
		"in-cluster  not read: no kubeconfig is declared",
		"1 waiting",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing in:\n%s", want, out)
		}
	}
	if strings.Contains(out, secret[:8]) {
		t.Errorf("the secret key is in the view")
	}

	// Only waiting left: exit 2.
	r.Plan.Unknowns, r.Summary.Unknown = nil, 0
	if got := r.ExitCode(); got != action.ExitChanges {
		t.Errorf("exit code with waiting objects = %d, want %d", got, action.ExitChanges)
	}

	var pt bytes.Buffer
	var seen probes.GuardView
	if _, err := probes.Open(context.Background(), kapsule.Kind{}, tp, probes.OpenOptions{Env: env, Home: dir, UserAgent: "nestor/test", Interactive: true,
		Confirm: func(v probes.GuardView) (bool, error) { seen = v; return true, nil }}); err != nil {
		t.Fatal(err)
	}
	Target(&pt, seen, action.TargetWhole, false)
	for _, want := range []string{"cluster      lyneko-apps (" + scwstub.ClusterID + ")", "cluster_url  https://" + scwstub.ClusterID, "pools        2:", "nodes        4", "credentials  SCW_ACCESS_KEY and SCW_SECRET_KEY in the environment (access key SCWABCD…QRST)", "kubeconfig   none"} {
		if !strings.Contains(pt.String(), want) {
			t.Errorf("%q missing in the guard's view:\n%s", want, pt.String())
		}
	}
}
