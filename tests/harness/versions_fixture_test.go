package harness_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/tests/harness"
)

// TestVersionsSkewFixture loads versions-skew.yaml into a real apiserver and
// checks that the read-only identity sees what the version rules are to be
// proven on: the apiserver at harness.K8sVersion, three Ready nodes whose
// kubelets (set through the status subresource) are v1.37.2, v1.36.4 and
// v1.34.1+rke2r1, and the default StorageClass local-path.
func TestVersionsSkewFixture(t *testing.T) {
	c := harness.StartT(t, harness.Options{})
	if err := c.LoadFixture(fixture("versions-skew.yaml")); err != nil {
		t.Fatalf("load versions-skew.yaml: %v", err)
	}
	ctx := context.Background()
	ro := clientFor(t, c.ReadOnly, "versions-skew-test")
	v, err := ro.Discovery().ServerVersion()
	if err != nil || v.GitVersion != harness.K8sVersion {
		t.Fatalf("server version = %+v, %v; want %s", v, err, harness.K8sVersion)
	}
	nodes, err := ro.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"skew1": "v1.37.2", "skew2": "v1.36.4", "skew3": "v1.34.1+rke2r1"}
	if len(nodes.Items) != len(want) {
		t.Fatalf("%d nodes, want %d", len(nodes.Items), len(want))
	}
	for _, n := range nodes.Items {
		if got := n.Status.NodeInfo.KubeletVersion; got != want[n.Name] {
			t.Errorf("node %s kubelet %q, want %q", n.Name, got, want[n.Name])
		}
		if !nodeReady(&n) {
			t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
		}
		_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
		if cp != (n.Name == "skew1") {
			t.Errorf("node %s control-plane label = %v", n.Name, cp)
		}
	}
	sc, err := ro.StorageV1().StorageClasses().Get(ctx, "local-path", metav1.GetOptions{})
	if err != nil || sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Errorf("StorageClass local-path: %v, %v", sc, err)
	}
	dep, err := ro.AppsV1().Deployments("local-path-storage").Get(ctx, "local-path-provisioner", metav1.GetOptions{})
	if err != nil || dep.Status.AvailableReplicas != 1 {
		t.Errorf("Deployment local-path-provisioner: %v (err %v), want 1 available", dep.Status, err)
	}
}
