package bench

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// previewRequests500 is how many requests one `nestor preview -o json
// --no-input` of the 500-node bench fixture (Generate, Spec{Nodes: 500}: 139
// namespaces, 150 CRDs, the 15 layers declared) sends, as the API server's
// audit log counts them: /version, the Tables of nodes, namespaces and CRDs,
// the StorageClasses, 42 workload lists (deployments, daemonsets and
// statefulsets of the 14 declared layers' namespaces that exist) and 21
// lists of the declared layers' own status resources (CephCluster,
// CephBlockPool, CephFilesystem, CNPG Cluster and Backup, Longhorn Volume
// and Node, Prometheus, Alertmanager, cert-manager's issuers and
// Certificates, External Secrets' stores and ExternalSecrets, Flux's
// sources, Kustomizations and HelmReleases, Argo CD Applications): 47 on
// 2026-12-01 before the status lists, 68 since. The upgrade judgement's
// reads (discovery, /metrics, leases, PodDisruptionBudgets) add nothing
// here: the fixture's cluster runs the declared minor, far from its end of
// life.
const previewRequests500 = 68

// TestPreviewRequestCount runs the built nestor's preview, and fleet over
// the same single stack, against a real API server loaded with the
// 500-node bench fixture, and counts their requests in the audit log by
// nestor's user agent ("nestor/"): each must be previewRequests500, every
// one a GET by the read-only identity answered 200. Skipped in -short.
func TestPreviewRequestCount(t *testing.T) {
	c := harness.StartT(t, harness.Options{})
	nestor := buildNestor(t)
	f := Generate(Spec{Nodes: 500, Seed: 1})
	st, err := Load(context.Background(), c.AdminConfig(), f, DefaultWorkers)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d objects in %v", st.Objects, st.Elapsed.Round(time.Millisecond))
	stacks := filepath.Join(t.TempDir(), "stacks")
	if _, err := WriteTopology(stacks, f, c.ReadOnly, c.URL, true); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "LANG=C"}
	// The calendars are judged on a fixed day: an upgrade report falling
	// due as the years pass would add its reads to the count.
	const asOf = "2026-12-01"
	for _, argv := range [][]string{
		{"preview", "-o", "json", "--no-input", "--as-of", asOf, "--stacks", stacks, "--stack", StackName},
		{"fleet", "-o", "json", "--as-of", asOf, "--stacks", stacks},
	} {
		before, err := c.AuditEvents("nestor/")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, nestor, argv...)
		cmd.Env = env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err = cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("nestor %s: %v\n%s", strings.Join(argv, " "), err, errOut.String())
		}
		if argv[0] == "fleet" {
			if _, err := CheckFleet(out.Bytes(), 1); err != nil {
				t.Fatalf("nestor fleet: %v", err)
			}
		} else if !bytes.Contains(out.Bytes(), []byte(`"format_version"`)) {
			t.Fatalf("nestor preview printed no report: %.300s", out.String())
		}
		after, err := c.AuditEvents("nestor/")
		if err != nil {
			t.Fatal(err)
		}
		events := after[len(before):]
		for _, e := range events {
			if e.Verb != "get" && e.Verb != "list" || e.User != harness.UserReadOnly || e.Code != 200 {
				t.Errorf("nestor %s: unexpected request %s", argv[0], e)
			}
		}
		switch n := len(events); {
		case n > previewRequests500:
			t.Errorf("nestor %s sent %d requests to a 500-node cluster, more than previewRequests500 = %d (see its comment before raising it):\n%s",
				argv[0], n, previewRequests500, eventLines(events))
		case n < previewRequests500:
			t.Errorf("nestor %s sent %d requests to a 500-node cluster, fewer than previewRequests500 = %d: lower the constant to %d so that it keeps guarding",
				argv[0], n, previewRequests500, n)
		default:
			t.Logf("nestor %s: %d requests", argv[0], n)
		}
	}
}

func eventLines(events []harness.AuditEvent) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("  " + e.String() + "\n")
	}
	return b.String()
}

// buildNestor builds ./cmd/nestor into the test's temporary folder and
// returns the binary's path.
func buildNestor(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "nestor")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/nestor")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/nestor: %v\n%s", err, out)
	}
	return bin
}
