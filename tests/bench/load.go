package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// LoaderUserAgent is the user agent of Load's requests.
const LoaderUserAgent = "nestor-bench-loader"

// DefaultWorkers is how many requests Load keeps in flight.
const DefaultWorkers = 32

var gvrCRD = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// LoadStats says what Load did.
type LoadStats struct {
	// Objects created and Requests sent (creates plus status updates).
	Objects, Requests int
	// Elapsed is the wall time of the whole load, the wait for the CRDs to
	// be Established included.
	Elapsed time.Duration
	// First is the time of the first phase (namespaces, StorageClasses),
	// Second of the second (CRDs, nodes, workloads), Established of the
	// wait for the CRDs.
	First, Second, Established time.Duration
}

// Load creates every object of f on the cluster cfg points at (an admin
// identity is expected), with workers requests in flight (DefaultWorkers
// when <= 0), protobuf for built-in types and JSON for CRDs, client-side
// rate limiting off. Namespaces and StorageClasses go first; then CRDs,
// nodes (created with their status, as a kubelet registers; the status is
// written again through the status subresource when the server dropped it)
// and workloads (created, then their status set through the status
// subresource, as their controllers would). It waits until every CRD is
// Established (60 s at most). A namespace that already exists (kube-system)
// is kept; any other failure ends the load with the errors of the objects
// that failed (at most 10 quoted).
func Load(ctx context.Context, cfg *rest.Config, f *Fixture, workers int) (LoadStats, error) {
	start := time.Now()
	if workers <= 0 {
		workers = DefaultWorkers
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = LoaderUserAgent
	cfg.QPS = 100000
	cfg.Burst = 100000
	cfg.Timeout = 60 * time.Second
	jsonCfg := rest.CopyConfig(cfg)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return LoadStats{}, err
	}
	dyn, err := dynamic.NewForConfig(jsonCfg)
	if err != nil {
		return LoadStats{}, err
	}

	var requests atomic.Int64
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	run := func(jobs []func() error) {
		queue := make(chan func() error)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range queue {
					if err := j(); err != nil {
						fail(err)
					}
				}
			}()
		}
		for _, j := range jobs {
			if ctx.Err() != nil {
				break
			}
			queue <- j
		}
		close(queue)
		wg.Wait()
	}

	var first []func() error
	for _, ns := range f.Namespaces {
		first = append(first, func() error {
			requests.Add(1)
			_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("namespace %s: %w", ns.Name, err)
			}
			return nil
		})
	}
	for _, sc := range f.StorageClasses {
		first = append(first, func() error {
			requests.Add(1)
			if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("StorageClass %s: %w", sc.Name, err)
			}
			return nil
		})
	}
	run(first)
	firstDone := time.Now()
	if err := joinErrs(errs); err != nil {
		return LoadStats{Requests: int(requests.Load()), Elapsed: time.Since(start)}, err
	}

	// CRDs first: the apiserver sets each one up (storage, OpenAPI,
	// discovery) in the background while the nodes load.
	var second []func() error
	for _, crd := range f.CRDs {
		second = append(second, func() error {
			requests.Add(1)
			if _, err := dyn.Resource(gvrCRD).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("CRD %s: %w", crd.GetName(), err)
			}
			return nil
		})
	}
	for _, n := range f.Nodes {
		second = append(second, func() error { return createNode(ctx, cs, n, &requests) })
	}
	for _, d := range f.Deployments {
		second = append(second, func() error {
			requests.Add(2)
			got, err := cs.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("Deployment %s/%s: %w", d.Namespace, d.Name, err)
			}
			got.Status = d.Status
			if _, err := cs.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("Deployment %s/%s status: %w", d.Namespace, d.Name, err)
			}
			return nil
		})
	}
	for _, d := range f.DaemonSets {
		second = append(second, func() error {
			requests.Add(2)
			got, err := cs.AppsV1().DaemonSets(d.Namespace).Create(ctx, d, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("DaemonSet %s/%s: %w", d.Namespace, d.Name, err)
			}
			got.Status = d.Status
			if _, err := cs.AppsV1().DaemonSets(d.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("DaemonSet %s/%s status: %w", d.Namespace, d.Name, err)
			}
			return nil
		})
	}
	for _, s := range f.StatefulSets {
		second = append(second, func() error { return createStatefulSet(ctx, cs, s, &requests) })
	}
	run(second)
	secondDone := time.Now()
	if err := joinErrs(errs); err != nil {
		return LoadStats{Requests: int(requests.Load()), Elapsed: time.Since(start)}, err
	}
	if err := waitCRDsEstablished(ctx, dyn, len(f.CRDs), &requests); err != nil {
		return LoadStats{Requests: int(requests.Load()), Elapsed: time.Since(start)}, err
	}
	// The layers' own status resources, their times counted from now.
	var third []func() error
	for _, so := range genStatusObjects(len(f.Nodes), f.Tenants, time.Now()) {
		third = append(third, func() error {
			requests.Add(2)
			res := dyn.Resource(so.gvr).Namespace(so.obj.GetNamespace())
			got, err := res.Create(ctx, so.obj, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("%s %s: %w", so.obj.GetKind(), so.obj.GetName(), err)
			}
			got.Object["status"] = so.status
			if _, err := res.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("%s %s status: %w", so.obj.GetKind(), so.obj.GetName(), err)
			}
			return nil
		})
	}
	run(third)
	if err := joinErrs(errs); err != nil {
		return LoadStats{Requests: int(requests.Load()), Elapsed: time.Since(start)}, err
	}
	return LoadStats{Objects: f.Objects(), Requests: int(requests.Load()), Elapsed: time.Since(start),
		First: firstDone.Sub(start), Second: secondDone.Sub(firstDone), Established: time.Since(secondDone)}, nil
}

func createNode(ctx context.Context, cs kubernetes.Interface, n *corev1.Node, requests *atomic.Int64) error {
	requests.Add(1)
	got, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("Node %s: %w", n.Name, err)
	}
	if len(got.Status.Conditions) == len(n.Status.Conditions) && len(got.Status.Images) == len(n.Status.Images) {
		return nil
	}
	requests.Add(1)
	got.Status = n.Status
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("Node %s status: %w", n.Name, err)
	}
	return nil
}

func createStatefulSet(ctx context.Context, cs kubernetes.Interface, s *appsv1.StatefulSet, requests *atomic.Int64) error {
	requests.Add(2)
	got, err := cs.AppsV1().StatefulSets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("StatefulSet %s/%s: %w", s.Namespace, s.Name, err)
	}
	got.Status = s.Status
	if _, err := cs.AppsV1().StatefulSets(s.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("StatefulSet %s/%s status: %w", s.Namespace, s.Name, err)
	}
	return nil
}

// waitCRDsEstablished lists the CRDs until want of them are Established.
func waitCRDsEstablished(ctx context.Context, dyn dynamic.Interface, want int, requests *atomic.Int64) error {
	deadline := time.Now().Add(5 * time.Minute) // generous: a loaded 2-core machine establishes 150 CRDs slowly
	for {
		requests.Add(1)
		list, err := dyn.Resource(gvrCRD).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list CRDs: %w", err)
		}
		est := 0
		for i := range list.Items {
			if established(&list.Items[i]) {
				est++
			}
		}
		if est >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d CRDs Established after 5m", est, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func established(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 10 {
		errs = append(errs[:10:10], fmt.Errorf("… and %d more failures", len(errs)-10))
	}
	return errors.Join(errs...)
}
