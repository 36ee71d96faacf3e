package probes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/topology"
)

// targetAt loads a target whose kubeconfig points at server.
func targetAt(t *testing.T, server string, timeout time.Duration) *Target {
	t.Helper()
	path := writeFile(t, filepath.Join(t.TempDir(), "kc"), kubeconfigText("ctx",
		map[string]string{"c": server}, map[string][2]string{"ctx": {"c", "u"}}))
	tg, err := LoadTargetWith(Kubeconfig{Paths: []string{path}, Source: SourceFlag},
		LoadOptions{UserAgent: "nestor/test", Kube: KubeOptions{Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestReadNodesClosedPortFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more: connection refused

	tg := targetAt(t, "https://"+addr, 10*time.Second)
	start := time.Now()
	ver, nodes := ReadNodes(context.Background(), tg)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a closed port took %v to fail; it must fail fast", d)
	}
	want := "unreachable: dial tcp " + addr + ": connect: connection refused"
	if ver.Known || ver.Reason != want {
		t.Errorf("version = %+v, want unknown %q", ver, want)
	}
	if nodes.Known || nodes.Reason != want || nodes.Value != nil {
		t.Errorf("nodes = %+v, want unknown %q", nodes, want)
	}
}

func TestReadNodesBlackholeEndsAtTimeout(t *testing.T) {
	// A listener that never accepts: the TCP handshake completes in the
	// kernel, the TLS handshake never gets an answer.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tg := targetAt(t, "https://"+l.Addr().String(), 700*time.Millisecond)
	start := time.Now()
	ver, nodes := ReadNodes(context.Background(), tg)
	d := time.Since(start)
	if d < 600*time.Millisecond || d > 3*time.Second {
		t.Errorf("a blackholed endpoint ended after %v, want about the 700ms timeout", d)
	}
	for _, r := range []string{ver.Reason, nodes.Reason} {
		if r != "timed out after 700ms" {
			t.Errorf("reason %q, want %q", r, "timed out after 700ms")
		}
	}
	if ver.Known || nodes.Known {
		t.Error("a fact is known after a timeout")
	}

	// The caller's deadline applies when it is sooner than the target's.
	tg.Options.Timeout = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start = time.Now()
	facts := readClusterFacts(ctx, tg, []string{"cnpg-system", "argocd"})
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("ProbeCluster reads ended after %v with a 1.5s context", d)
	}
	for name, f := range map[string]topology.Fact[[]string]{"namespaces": facts.Namespaces, "crd groups": facts.CRDGroups} {
		if f.Known || !strings.HasPrefix(f.Reason, "timed out after 1.") {
			t.Errorf("%s = %+v, want unknown timed out after ~1.5s", name, f)
		}
	}
	if facts.StorageClasses.Known || facts.Workloads.Known {
		t.Errorf("storage %+v workloads %+v, want unknown", facts.StorageClasses, facts.Workloads)
	}
	// Namespaces unknown: workloads were looked for in every wanted namespace.
	if strings.Join(facts.WorkloadNamespaces, ",") != "cnpg-system,argocd" {
		t.Errorf("WorkloadNamespaces = %q", facts.WorkloadNamespaces)
	}
}

func TestProbeClusterUnreachableIsUnknownNotAbsent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tg := targetAt(t, "https://"+addr, 5*time.Second)
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cnpg"}, {Name: "argocd"}}}
	ver, nodes := ReadNodes(context.Background(), tg)
	obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
	if obs.Nodes.Known || obs.ServerVersion.Known || facts.Namespaces.Known || obs.Storage.Known {
		t.Fatalf("unreachable target gave known facts: %+v %+v", obs, facts)
	}
	if len(obs.Layers) != 2 {
		t.Fatalf("layers %+v", obs.Layers)
	}
	for _, l := range obs.Layers {
		if l.Health != topology.Unknown || !strings.Contains(l.Reason, "connection refused") {
			t.Errorf("layer %+v, want unknown (connection refused)", l)
		}
	}
}

func statusErr(code int32, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}

func TestClassify(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/version", Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: errors.New("connect: connection refused")}}
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{statusErr(403, metav1.StatusReasonForbidden, `nodes is forbidden: User "nestor-noaccess" cannot list resource "nodes" in API group "" at the cluster scope`),
			"forbidden (user nestor-noaccess cannot list nodes)"},
		{statusErr(403, metav1.StatusReasonForbidden, `deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "cnpg-system"`),
			"forbidden (user bob cannot list deployments.apps in namespace cnpg-system)"},
		{statusErr(403, metav1.StatusReasonForbidden, `forbidden: something else`), "forbidden (forbidden: something else)"},
		{statusErr(401, metav1.StatusReasonUnauthorized, "Unauthorized"), "unauthorized (the API server refused the credentials)"},
		{&TimeoutError{After: 10 * time.Second, Err: context.DeadlineExceeded}, "timed out after 10s"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "timed out"},
		{refused, "unreachable: dial tcp 127.0.0.1:1: connect: connection refused"},
		{&url.Error{Op: "Get", URL: "https://nope.invalid/version", Err: &net.DNSError{Err: "no such host", Name: "nope.invalid"}},
			"unreachable: lookup nope.invalid: no such host"},
		{statusErr(500, metav1.StatusReasonInternalError, "etcd is down"), "internalerror: etcd is down"},
		{&url.Error{Op: "Get", URL: "https://x/version", Err: errors.New("boom")}, "boom"},
		{&WriteRefusedError{Method: http.MethodPost, Path: "/api/v1/namespaces"},
			"refused by nestor: nestor refused to send POST /api/v1/namespaces: read commands only send GET, HEAD and OPTIONS"},
	}
	for _, tc := range tests {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestNodeState(t *testing.T) {
	// Built as the API returns it; roles from both label forms.
	n := nodeFixture()
	got := nodeState(n)
	if got.Name != "dirqual1" || !got.Ready || got.KubeletVersion != "v1.36.2" || got.InternalIP != "10.67.2.11" ||
		strings.Join(got.Roles, ",") != "control-plane,ingress" {
		t.Errorf("nodeState = %+v", got)
	}
}

func nodeFixture() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "dirqual1", Labels: map[string]string{
			"node-role.kubernetes.io/control-plane": "",
			"kubernetes.io/role":                    "ingress",
			"kubernetes.io/hostname":                "dirqual1",
		}},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeHostName, Address: "dirqual1"},
				{Type: corev1.NodeInternalIP, Address: "10.67.2.11"},
				{Type: corev1.NodeInternalIP, Address: "fd00::11"},
			},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.36.2"},
		},
	}
}
