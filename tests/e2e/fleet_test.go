package e2e

// End-to-end proofs of nestor fleet: every stack of a folder read at once,
// each failure its own line, each stack read through its own kubeconfig
// only, limactl run once, nothing written.

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// fleetDoc is fleet's -o json document; report is kept raw to compare it
// with preview's own document.
type fleetDoc struct {
	FormatVersion int    `json:"format_version"`
	AsOf          string `json:"as_of"`
	Stacks        []struct {
		Name       string          `json:"name"`
		File       string          `json:"file"`
		TargetKind string          `json:"target_kind"`
		Status     string          `json:"status"`
		Reason     string          `json:"reason"`
		Changes    *int            `json:"changes"`
		Report     json.RawMessage `json:"report"`
	} `json:"stacks"`
}

// fleetWorld writes the stacks of the fleet proofs: healthy (the dirqual
// example read from the healthy cluster), drifted (the same topology read
// from the bench cluster), bench and bench2 (lima, one VM stopped), closed
// (a prod stack whose API server port is closed), noep (no endpoint:) and
// broken (an invalid topology).
func fleetWorld(t *testing.T, healthy, drifted *harness.Cluster) *world {
	t.Helper()
	w := newWorld(t, healthy, drifted)
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "stacks", "examples", "dirqual.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	prod := func(name, endpoint, kubeconfig string) {
		text := replaceLine(t, string(src), "name:", name)
		text = replaceLine(t, text, "endpoint:", endpoint)
		text = replaceLine(t, text, "kubeconfig:", kubeconfig)
		w.stackFile(name, text)
	}
	w.kubeconfig(healthy, filepath.Join(w.Home, ".kube", "healthy.config"), harness.IdentityReadOnly, "")
	prod("healthy", healthy.URL, "~/.kube/healthy.config")
	w.kubeconfig(drifted, filepath.Join(w.Home, ".kube", "drifted.config"), harness.IdentityReadOnly, "")
	prod("drifted", drifted.URL, "~/.kube/drifted.config")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + l.Addr().String()
	l.Close()
	w.kubeconfig(healthy, filepath.Join(w.Home, ".kube", "closed.config"), harness.IdentityReadOnly, closed)
	prod("closed", closed, "~/.kube/closed.config")
	// noep reads as admin: a request of its would show in the healthy
	// cluster's audit log under another user.
	w.kubeconfig(healthy, filepath.Join(w.Home, ".kube", "noep.config"), harness.IdentityAdmin, "")
	prod("noep", "", "~/.kube/noep.config")

	w.benchStack()
	bench, err := os.ReadFile(filepath.Join(w.Stacks, "bench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w.stackFile("bench2", replaceLine(t, string(bench), "name:", "bench2"))
	w.stackFile("broken", "name: broken\ntarget_kind: prod\nnodes: 3\n")
	return w
}

func TestFleet(t *testing.T) {
	healthy := sharedFixtureCluster(t, healthyFixture)
	drifted := sharedFixtureCluster(t, benchFixture)
	w := fleetWorld(t, healthy, drifted)

	// Each line's status; exit 0; the audit logs (checked by w.run: only
	// get/list/watch) and the files unchanged.
	r := w.run(nil, "fleet", "--stacks", w.Stacks)
	wantCode(t, r, 0)
	for stack, status := range map[string]string{
		"bench":   "unknown",
		"bench2":  "unknown",
		"broken":  "invalid",
		"closed":  "unreachable",
		"drifted": "changes",
		"healthy": "in sync",
		"noep":    "refused",
	} {
		wantLine(t, stack, r.stdout, `^`+stack+`\s+\S+\s+\S+.*\s`+quote(status)+`\s`)
	}
	wantLine(t, "healthy target", r.stdout, `^healthy\s+prod\s+`+quote(healthy.URL)+`\s+in sync\s+1\.37\.2\s+until 2027-10-28\s+2027-10-28 → 1\.38\s+0\s+0\s+0$`)
	wantLine(t, "summary", r.stdout, `^7 stacks: 1 in sync, 1 need changes, 0 waiting; 2 unknown, 1 unreachable, 1 refused, 1 invalid$`)
	wantNotContains(t, "stderr (no terminal: no progress)", r.stderr, "read…")

	// Each API server saw only its own stack's reads: the healthy cluster
	// the healthy stack's (noep and closed are refused or unreachable
	// before a request reaches it), the drifted cluster the drifted one's.
	for i, c := range []*harness.Cluster{healthy, drifted} {
		if len(r.audit[i]) == 0 {
			t.Errorf("cluster %s saw no request from its stack", c.URL)
		}
	}
	readBy := func(events []harness.AuditEvent) map[string]bool {
		users := map[string]bool{}
		for _, e := range events {
			users[e.User] = true
		}
		return users
	}
	if u := readBy(r.audit[0]); len(u) != 1 {
		t.Errorf("healthy cluster: requests from %v, want the read-only identity of one stack", u)
	}

	// limactl was run once for the two lima stacks.
	if calls := w.limaCalls(); len(calls) != 1 {
		t.Errorf("limactl calls = %q, want one for both lima stacks", calls)
	}

	// --detailed-exitcode: 1 with failures; 2 with the healthy and the
	// drifted stack only; 0 with the healthy one alone.
	wantCode(t, w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed-exitcode"), 1)
	wantCode(t, w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed-exitcode", "healthy", "drifted"), 2)
	wantCode(t, w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed-exitcode", "healthy"), 0)

	// --detailed: the reason of a refused stack and the plan of the drifted one.
	d := w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed", "noep", "drifted")
	wantContains(t, "detailed", d.stdout, "declares no endpoint:", "PLAN", "Plan: ")

	// -o json parses, and each report equals that stack's own
	// preview -o json --no-input (the document has no timing field).
	j := w.run(nil, "fleet", "--stacks", w.Stacks, "-o", "json")
	wantCode(t, j, 0)
	var doc fleetDoc
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatalf("fleet -o json: %v\n%s", err, j)
	}
	if doc.FormatVersion != 3 || len(doc.Stacks) != 7 || doc.AsOf == "" {
		t.Fatalf("fleet document: %+v", doc)
	}
	vocabulary := map[string]bool{"in sync": true, "changes": true, "waiting": true, "unknown": true, "no target": true, "refused": true, "unreachable": true, "invalid": true}
	for _, s := range doc.Stacks {
		if !vocabulary[s.Status] {
			t.Errorf("%s: status %q is not a word of the vocabulary", s.Name, s.Status)
		}
		if s.Status != "in sync" && s.Reason == "" {
			t.Errorf("%s: status %s without its reason", s.Name, s.Status)
		}
		if (s.Changes == nil) != (string(s.Report) == "null") && s.Status != "no target" {
			t.Errorf("%s: counts %v with report %.20s", s.Name, s.Changes, s.Report)
		}
		p := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", s.Name, "-o", "json", "--no-input")
		if string(s.Report) == "null" {
			if p.code == 0 {
				t.Errorf("%s: fleet has no report, but preview made one:\n%s", s.Name, p)
			}
			if s.Reason == "" {
				t.Errorf("%s: no report and no reason", s.Name)
			}
			continue
		}
		var fromFleet, fromPreview any
		// A status's age is counted from each read: the two reads are
		// seconds apart.
		age := regexp.MustCompile(`checked [0-9]+ (s|min) ago`)
		if err := json.Unmarshal(age.ReplaceAll(s.Report, []byte("checked N s ago")), &fromFleet); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(age.ReplaceAll([]byte(p.stdout), []byte("checked N s ago")), &fromPreview); err != nil {
			t.Fatalf("%s: preview -o json: %v", s.Name, err)
		}
		if !reflect.DeepEqual(fromFleet, fromPreview) {
			t.Errorf("%s: fleet's report differs from preview's:\nfleet:   %s\npreview: %s", s.Name, s.Report, strings.TrimSpace(p.stdout))
		}
	}

	// An exported KUBECONFIG is one cluster's: fleet reads each stack
	// through its own kubeconfig: and says once, on stderr, that the
	// exported one is not used — not once per stack.
	src, err := os.ReadFile(filepath.Join(w.Stacks, "healthy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w.stackFile("healthy2", replaceLine(t, string(src), "name:", "healthy2"))
	other := w.kubeconfig(drifted, filepath.Join(w.Home, "other.config"), harness.IdentityReadOnly, "")
	k := w.run([]string{"KUBECONFIG=" + other}, "fleet", "--stacks", w.Stacks, "healthy", "healthy2")
	wantLine(t, "both read through their own kubeconfig", k.stdout, `^2 stacks: 2 in sync`)
	if n := strings.Count(k.stderr, "the exported KUBECONFIG is not used"); n != 1 {
		t.Errorf("the exported KUBECONFIG is said %d times, want once:\n%s", n, k)
	}
}

// A stack whose server accepts connections but never answers does
// not delay the table beyond --timeout.
func TestFleetTimeoutBoundsASilentServer(t *testing.T) {
	healthy := sharedFixtureCluster(t, healthyFixture)
	w := newWorld(t, healthy)
	hole, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers TLS
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	silent := "https://" + hole.Addr().String()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "stacks", "examples", "dirqual.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, server := range map[string]string{"healthy": healthy.URL, "silent": silent} {
		w.kubeconfig(healthy, filepath.Join(w.Home, ".kube", name+".config"), harness.IdentityReadOnly, server)
		text := replaceLine(t, string(src), "name:", name)
		text = replaceLine(t, text, "endpoint:", server)
		w.stackFile(name, replaceLine(t, text, "kubeconfig:", "~/.kube/"+name+".config"))
	}
	r := w.run(nil, "fleet", "--stacks", w.Stacks, "--timeout", "2s")
	wantCode(t, r, 0)
	wantLine(t, "silent", r.stdout, `^silent\s+prod\s+\S+\s+unreachable\s`)
	wantLine(t, "healthy", r.stdout, `^healthy\s+prod\s+\S+\s+in sync\s`)
	if r.took > 10*time.Second {
		t.Errorf("fleet took %v with --timeout 2s", r.took)
	}
}

// TestFleetHoldsOnlyTheConnectionsOfTheStacksBeingRead runs a fleet of more
// stacks than the process may hold open files: each stack reads through a
// connection of its own, which ends once the stack is read, so the fleet
// needs the files of the stacks read at once (--parallel), not one socket
// per stack read so far. Without the close (fleetStack's op.Close), stacks
// of these 40 fail with "too many open files".
func TestFleetHoldsOnlyTheConnectionsOfTheStacksBeingRead(t *testing.T) {
	healthy := sharedFixtureCluster(t, healthyFixture)
	w := newWorld(t, healthy)
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "stacks", "examples", "dirqual.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w.kubeconfig(healthy, filepath.Join(w.Home, ".kube", "healthy.config"), harness.IdentityReadOnly, "")
	const stacks, nofile = 40, 32
	for i := 0; i < stacks; i++ {
		text := replaceLine(t, string(src), "name:", fmt.Sprintf("prod%02d", i))
		text = replaceLine(t, text, "endpoint:", healthy.URL)
		w.stackFile(fmt.Sprintf("prod%02d", i), replaceLine(t, text, "kubeconfig:", "~/.kube/healthy.config"))
	}
	r := w.runWith(runOpts{env: w.env(), nofile: nofile}, "fleet", "--stacks", w.Stacks, "--parallel", "8", "-o", "json")
	wantCode(t, r, 0)
	var doc fleetDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("fleet -o json: %v\n%s", err, r.stdout)
	}
	if len(doc.Stacks) != stacks {
		t.Fatalf("fleet read %d stacks, want %d", len(doc.Stacks), stacks)
	}
	for _, s := range doc.Stacks {
		if s.Status != "in sync" {
			t.Errorf("stack %s: status %q (%s), want in sync with an open-file limit of %d", s.Name, s.Status, s.Reason, nofile)
		}
	}
}
