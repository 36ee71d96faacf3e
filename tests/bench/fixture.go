// Package bench measures `nestor preview` on a large cluster side by side
// with kubectl and with the raw-API floor. It generates realistic cluster
// fixtures at a given scale (Generate), loads them into the real test
// apiserver of tests/harness fast (Load), reads the floor (Floor), and runs
// commands as child processes measuring wall time and peak RSS (RunCommand).
// The driver is cmd/nestor-bench; tests/bench/run.sh builds and runs it, and
// BENCHMARKS.md at the top of the repository records the method and results.
package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KubeletVersion is the version every generated node reports (the test
// apiserver's own release, tests/harness.K8sVersion).
const KubeletVersion = "v1.37.2"

// Spec is the size of a generated cluster.
type Spec struct {
	// Nodes is the number of nodes, control planes included (at least 1).
	Nodes int
	// Namespaces is the number of namespaces to create besides the layers'
	// own; 0 means Nodes/4 (500 at 2,000 nodes), at least 1.
	Namespaces int
	// CRDs is how many CustomResourceDefinitions to create, at most
	// len(CRDCatalog()) (150); 0 means all of them.
	CRDs int
	// Seed makes the generated values (images, sizes, ids) reproducible.
	Seed uint64
}

// normalized returns s with its defaults filled in.
func (s Spec) normalized() Spec {
	if s.Nodes < 1 {
		s.Nodes = 1
	}
	if s.Namespaces <= 0 {
		s.Namespaces = max(s.Nodes/4, 1)
	}
	if n := len(crdCatalog); s.CRDs <= 0 || s.CRDs > n {
		s.CRDs = n
	}
	return s
}

// Fixture is a generated cluster: every object Load creates. Status fields
// are set as the real controllers and kubelets would set them.
type Fixture struct {
	Spec Spec
	// Nodes as kubelets register them: labels, addresses, capacity,
	// allocatable, five conditions, nodeInfo, ~40 images, daemon endpoints.
	Nodes []*corev1.Node
	// Namespaces: the layers' namespaces first, then Spec.Namespaces tenant
	// namespaces.
	Namespaces []*corev1.Namespace
	// CRDs are apiextensions.k8s.io/v1 CustomResourceDefinitions with
	// structural schemas (unstructured: nestor's module has no typed client
	// for them).
	CRDs           []*unstructured.Unstructured
	StorageClasses []*storagev1.StorageClass
	Deployments    []*appsv1.Deployment
	DaemonSets     []*appsv1.DaemonSet
	StatefulSets   []*appsv1.StatefulSet
	// Layers are the catalog layers installed, in install order.
	Layers []string
	// ControlPlanes are the names of the control-plane nodes.
	ControlPlanes []string
	// Tenants are the tenant namespaces (those of no layer).
	Tenants []string
}

// Objects returns the number of objects in f.
func (f *Fixture) Objects() int {
	return len(f.Nodes) + len(f.Namespaces) + len(f.CRDs) + len(f.StorageClasses) +
		len(f.Deployments) + len(f.DaemonSets) + len(f.StatefulSets) + len(genStatusObjects(len(f.Nodes), f.Tenants, time.Time{}))
}

// Generate builds the fixture of spec: deterministic for a given spec (Seed
// included). Control planes are 3 (5 from 1,000 nodes on, 1 below 3 nodes),
// spread over three zones of one region; the workloads are those of the
// layers in Installs, DaemonSets scheduled on every node.
func Generate(spec Spec) *Fixture {
	spec = spec.normalized()
	rng := rand.New(rand.NewPCG(spec.Seed, 0x6e6573746f72))
	f := &Fixture{Spec: spec}

	cps := 3
	switch {
	case spec.Nodes < 3:
		cps = 1
	case spec.Nodes >= 1000:
		cps = 5
	}
	pool := imagePool()
	created := metav1.NewTime(time.Date(2026, 3, 2, 9, 14, 0, 0, time.UTC))
	for i := 0; i < spec.Nodes; i++ {
		cp := i < cps
		var name string
		if cp {
			name = fmt.Sprintf("cp-%d", i+1)
			f.ControlPlanes = append(f.ControlPlanes, name)
		} else {
			name = fmt.Sprintf("worker-%04d", i-cps+1)
		}
		f.Nodes = append(f.Nodes, genNode(i, name, cp, rng, pool, created))
	}

	seen := map[string]bool{}
	for _, in := range Installs() {
		if in.Layer != "" {
			f.Layers = append(f.Layers, in.Layer)
		}
		if !seen[in.Namespace] {
			seen[in.Namespace] = true
			f.Namespaces = append(f.Namespaces, genNamespace(in.Namespace, in.Layer))
		}
		for _, w := range in.Workloads {
			switch w.Kind {
			case "Deployment":
				f.Deployments = append(f.Deployments, genDeployment(in, w))
			case "DaemonSet":
				f.DaemonSets = append(f.DaemonSets, genDaemonSet(in, w, int32(spec.Nodes)))
			case "StatefulSet":
				f.StatefulSets = append(f.StatefulSets, genStatefulSet(in, w))
			}
		}
	}
	teams := []string{"payments", "search", "checkout", "identity", "ml", "data", "web", "mobile", "risk", "ads"}
	envs := []string{"prod", "staging", "dev"}
	for i := 0; len(f.Namespaces) < spec.Namespaces+len(seen); i++ {
		team := teams[i%len(teams)]
		env := envs[(i/len(teams))%len(envs)]
		name := fmt.Sprintf("%s-%s-%03d", team, env, i)
		if seen[name] || name == "default" {
			continue
		}
		ns := genNamespace(name, "")
		ns.Labels["team"] = team
		ns.Labels["environment"] = env
		ns.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
		ns.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "node-role.kubernetes.io/worker="}
		f.Namespaces = append(f.Namespaces, ns)
		f.Tenants = append(f.Tenants, name)
	}

	for i, c := range crdCatalog[:spec.CRDs] {
		f.CRDs = append(f.CRDs, genCRD(c, rng, i))
	}
	f.StorageClasses = genStorageClasses()
	return f
}

// zones and instance types of the generated nodes.
var (
	region        = "eu-central"
	zones         = []string{"eu-central-a", "eu-central-b", "eu-central-c"}
	instanceTypes = []string{"r650-2x32c-512g", "r660-2x48c-768g", "r6525-2x64c-1t"}
)

func genNode(i int, name string, cp bool, rng *rand.Rand, pool []image, created metav1.Time) *corev1.Node {
	zone := zones[i%len(zones)]
	itype := instanceTypes[i%len(instanceTypes)]
	ip := fmt.Sprintf("10.%d.%d.%d", 64+i/65536, (i/256)%256, i%256)
	labels := map[string]string{
		"beta.kubernetes.io/arch":                        "amd64",
		"beta.kubernetes.io/os":                          "linux",
		"kubernetes.io/arch":                             "amd64",
		"kubernetes.io/os":                               "linux",
		"kubernetes.io/hostname":                         name,
		"topology.kubernetes.io/region":                  region,
		"topology.kubernetes.io/zone":                    zone,
		"node.kubernetes.io/instance-type":               itype,
		"feature.node.kubernetes.io/cpu-model.vendor_id": "AMD",
		"rack": fmt.Sprintf("r%02d", i/40+1),
	}
	var taints []corev1.Taint
	if cp {
		labels["node-role.kubernetes.io/control-plane"] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		taints = []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}
	} else {
		labels["node-role.kubernetes.io/worker"] = ""
		if i%10 == 0 {
			labels["node-role.kubernetes.io/storage"] = ""
		}
	}
	podCIDR := fmt.Sprintf("10.%d.%d.0/24", 128+i/256, i%256)
	cpu, mem := "64", "527952848Ki"
	switch itype {
	case "r660-2x48c-768g":
		cpu, mem = "96", "791881488Ki"
	case "r6525-2x64c-1t":
		cpu, mem = "128", "1055812020Ki"
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(cpu),
		corev1.ResourceMemory:           resource.MustParse(mem),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("959218776Ki"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	allocCPU := resource.MustParse(cpu)
	allocCPU.Sub(resource.MustParse("500m"))
	allocMem := resource.MustParse(mem)
	allocMem.Sub(resource.MustParse("1Gi"))
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:              allocCPU,
		corev1.ResourceMemory:           allocMem,
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("884016022331"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	hb := metav1.NewTime(created.Add(time.Duration(rng.IntN(3600)) * time.Second))
	trans := created
	conds := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: trans, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: trans, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: trans, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: hb, LastTransitionTime: trans, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
		{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, LastHeartbeatTime: trans, LastTransitionTime: trans, Reason: "CiliumIsUp", Message: "Cilium is running on this node"},
	}
	// ~40 images: the node agents every node runs, then a random mix of
	// application images (what the kubelet's image GC leaves behind).
	images := make([]corev1.ContainerImage, 0, 40)
	picked := map[int]bool{}
	for j := 0; j < commonImages && j < len(pool); j++ {
		picked[j] = true
		images = append(images, pool[j].status())
	}
	for len(images) < 40 && len(picked) < len(pool) {
		j := commonImages + rng.IntN(len(pool)-commonImages)
		if picked[j] {
			continue
		}
		picked[j] = true
		images = append(images, pool[j].status())
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///var/run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"driver.longhorn.io":%q,"rook-ceph.rbd.csi.ceph.com":%q,"rook-ceph.cephfs.csi.ceph.com":%q}`, name, name, name),
				"io.cilium.network.ipv4-cilium-host":                     fmt.Sprintf("10.%d.%d.17", 128+i/256, i%256),
				"io.cilium.network.ipv4-pod-cidr":                        podCIDR,
				"io.cilium.network.ipv4-health-ip":                       fmt.Sprintf("10.%d.%d.203", 128+i/256, i%256),
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  podCIDR,
			PodCIDRs: []string{podCIDR},
			Taints:   taints,
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: alloc,
			Phase:       "",
			Conditions:  conds,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: ip},
				{Type: corev1.NodeHostName, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               hexID(rng, 16),
				SystemUUID:              uuid(rng),
				BootID:                  uuid(rng),
				KernelVersion:           "6.1.0-31-amd64",
				OSImage:                 "Debian GNU/Linux 12 (bookworm)",
				ContainerRuntimeVersion: "containerd://1.7.24",
				KubeletVersion:          KubeletVersion,
				OperatingSystem:         "linux",
				Architecture:            "amd64",
			},
			Images: images,
			RuntimeHandlers: []corev1.NodeRuntimeHandler{
				{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
				{Name: "", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
			},
			Features: &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr(true)},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// hexID returns n random bytes as lower-case hex.
func hexID(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return hex.EncodeToString(b)
}

// uuid returns a random RFC 4122 version-4 UUID string.
func uuid(rng *rand.Rand) string {
	h := hexID(rng, 16)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// image is one entry of the image pool nodes pick their status.images from.
type image struct {
	repo, tag string
	size      int64
}

// status renders im as the kubelet reports it: the digest name and the tag.
func (im image) status() corev1.ContainerImage {
	sum := sha256.Sum256([]byte(im.repo + ":" + im.tag))
	return corev1.ContainerImage{
		Names:     []string{im.repo + "@sha256:" + hex.EncodeToString(sum[:]), im.repo + ":" + im.tag},
		SizeBytes: im.size,
	}
}

// commonImages is how many images at the head of imagePool every node has.
const commonImages = 12

// imagePool returns the images nodes report: the node agents first
// (commonImages of them), then application images in several tags.
func imagePool() []image {
	agents := []image{
		{"quay.io/cilium/cilium", "v1.18.4", 250_118_443},
		{"quay.io/cilium/operator-generic", "v1.18.4", 41_632_886},
		{"registry.k8s.io/pause", "3.10.1", 320_368},
		{"registry.k8s.io/kube-proxy", "v1.37.2", 30_215_871},
		{"docker.io/longhornio/longhorn-manager", "v1.10.1", 116_474_031},
		{"docker.io/longhornio/longhorn-instance-manager", "v1.10.1", 282_310_212},
		{"quay.io/metallb/speaker", "v0.15.2", 54_184_442},
		{"registry.k8s.io/sig-storage/csi-node-driver-registrar", "v2.14.0", 14_052_138},
		{"quay.io/cephcsi/cephcsi", "v3.15.0", 557_381_104},
		{"quay.io/prometheus/node-exporter", "v1.10.2", 12_398_511},
		{"docker.io/fluent/fluent-bit", "4.1.1", 39_880_163},
		{"registry.k8s.io/sig-storage/livenessprobe", "v2.16.0", 10_108_337},
	}
	apps := []string{
		"docker.io/library/nginx", "docker.io/library/redis", "docker.io/library/postgres",
		"docker.io/library/python", "docker.io/library/golang", "docker.io/library/node",
		"ghcr.io/cloudnative-pg/postgresql", "ghcr.io/cloudnative-pg/cloudnative-pg",
		"quay.io/prometheus/prometheus", "quay.io/prometheus/alertmanager",
		"quay.io/argoproj/argocd", "ghcr.io/fluxcd/source-controller",
		"quay.io/jetstack/cert-manager-controller", "registry.k8s.io/ingress-nginx/controller",
		"ghcr.io/external-secrets/external-secrets", "registry.k8s.io/metrics-server/metrics-server",
		"docker.io/goharbor/harbor-core", "docker.io/goharbor/registry-photon",
		"docker.io/bitnami/kafka", "docker.io/bitnami/zookeeper", "docker.io/grafana/grafana",
		"docker.io/grafana/loki", "docker.io/grafana/tempo", "docker.io/jaegertracing/all-in-one",
		"registry.example.internal/payments/api", "registry.example.internal/search/indexer",
		"registry.example.internal/checkout/web", "registry.example.internal/identity/auth",
		"registry.example.internal/ml/trainer", "registry.example.internal/data/etl",
		"docker.io/rook/ceph", "quay.io/ceph/ceph", "docker.io/library/busybox",
		"docker.io/library/alpine", "docker.io/library/debian", "docker.io/curlimages/curl",
	}
	pool := append([]image{}, agents...)
	for i, r := range apps {
		for t := 0; t < 3; t++ {
			tag := fmt.Sprintf("%d.%d.%d", 1+i%5, (i*7+t*3)%20, t)
			size := int64(8_000_000 + (i*37+t*13)%90*9_500_000)
			pool = append(pool, image{r, tag, size})
		}
	}
	return pool
}

func genNamespace(name, layer string) *corev1.Namespace {
	ns := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"kubernetes.io/metadata.name": name},
		},
	}
	if layer != "" {
		ns.Labels["app.kubernetes.io/part-of"] = layer
		ns.Labels["app.kubernetes.io/managed-by"] = "Helm"
	}
	return ns
}

// genStorageClasses returns the classes of the storage layers installed:
// rook-ceph block (the default) and CephFS, Longhorn, local-path, and an
// encrypted variant a platform team would add.
func genStorageClasses() []*storagev1.StorageClass {
	del, ret := corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain
	imm, wfc := storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer
	sc := func(name, prov string, def bool, rp corev1.PersistentVolumeReclaimPolicy, mode storagev1.VolumeBindingMode, params map[string]string) *storagev1.StorageClass {
		s := &storagev1.StorageClass{
			TypeMeta:             metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:           metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
			Provisioner:          prov,
			Parameters:           params,
			ReclaimPolicy:        &rp,
			VolumeBindingMode:    &mode,
			AllowVolumeExpansion: ptr(true),
		}
		if def {
			s.Annotations["storageclass.kubernetes.io/is-default-class"] = "true"
		}
		return s
	}
	rbd := map[string]string{
		"clusterID": "rook-ceph", "pool": "replicapool", "imageFormat": "2", "imageFeatures": "layering",
		"csi.storage.k8s.io/provisioner-secret-name":            "rook-csi-rbd-provisioner",
		"csi.storage.k8s.io/provisioner-secret-namespace":       "rook-ceph",
		"csi.storage.k8s.io/controller-expand-secret-name":      "rook-csi-rbd-provisioner",
		"csi.storage.k8s.io/controller-expand-secret-namespace": "rook-ceph",
		"csi.storage.k8s.io/node-stage-secret-name":             "rook-csi-rbd-node",
		"csi.storage.k8s.io/node-stage-secret-namespace":        "rook-ceph",
		"csi.storage.k8s.io/fstype":                             "ext4",
	}
	enc := map[string]string{}
	for k, v := range rbd {
		enc[k] = v
	}
	enc["encrypted"] = "true"
	enc["encryptionKMSID"] = "vault-kms"
	return []*storagev1.StorageClass{
		sc("rook-ceph-block", "rook-ceph.rbd.csi.ceph.com", true, del, imm, rbd),
		sc("rook-ceph-block-encrypted", "rook-ceph.rbd.csi.ceph.com", false, ret, imm, enc),
		sc("rook-cephfs", "rook-ceph.cephfs.csi.ceph.com", false, del, imm, map[string]string{
			"clusterID": "rook-ceph", "fsName": "myfs", "pool": "myfs-replicated",
			"csi.storage.k8s.io/provisioner-secret-name":      "rook-csi-cephfs-provisioner",
			"csi.storage.k8s.io/provisioner-secret-namespace": "rook-ceph",
			"csi.storage.k8s.io/node-stage-secret-name":       "rook-csi-cephfs-node",
			"csi.storage.k8s.io/node-stage-secret-namespace":  "rook-ceph",
		}),
		sc("longhorn", "driver.longhorn.io", false, del, imm, map[string]string{
			"numberOfReplicas": "3", "staleReplicaTimeout": "30", "fromBackup": "", "fsType": "ext4", "dataLocality": "disabled",
		}),
		sc("local-path", "rancher.io/local-path", false, del, wfc, nil),
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
