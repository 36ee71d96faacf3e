package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Install is one layer as its upstream default install lays it out: the
// namespace and the workloads (names from the manifests or charts the
// catalog of package topology cites), including the ones the catalog does
// not look at (a real install has them too).
type Install struct {
	// Layer is the catalog layer name; "" for cluster add-ons that are no
	// layer (CoreDNS).
	Layer     string
	Namespace string
	Workloads []InstallWorkload
}

// InstallWorkload is one Deployment, DaemonSet or StatefulSet of an Install.
type InstallWorkload struct {
	// Kind is Deployment, DaemonSet or StatefulSet.
	Kind string
	Name string
	// Replicas of a Deployment or StatefulSet (a DaemonSet runs on every node).
	Replicas int32
	Image    string
	Port     int32
}

func dep(name string, replicas int32, img string, port int32) InstallWorkload {
	return InstallWorkload{"Deployment", name, replicas, img, port}
}
func ds(name, img string, port int32) InstallWorkload {
	return InstallWorkload{"DaemonSet", name, 0, img, port}
}
func sts(name string, replicas int32, img string, port int32) InstallWorkload {
	return InstallWorkload{"StatefulSet", name, replicas, img, port}
}

// Installs returns the 15 catalog layers the benchmark cluster runs (one
// CNI, three storage layers, and one of each other category), plus CoreDNS,
// in install order. Every workload is created available.
func Installs() []Install {
	return []Install{
		{"", "kube-system", []InstallWorkload{dep("coredns", 2, "registry.k8s.io/coredns/coredns:v1.12.4", 53)}},
		{"cilium", "kube-system", []InstallWorkload{
			ds("cilium", "quay.io/cilium/cilium:v1.18.4", 9962),
			ds("cilium-envoy", "quay.io/cilium/cilium-envoy:v1.34.10", 9964),
			dep("cilium-operator", 2, "quay.io/cilium/operator-generic:v1.18.4", 9963),
		}},
		{"rook-ceph", "rook-ceph", []InstallWorkload{
			dep("rook-ceph-operator", 1, "docker.io/rook/ceph:v1.18.6", 9443),
			dep("rook-ceph-mon-a", 1, "quay.io/ceph/ceph:v19.2.3", 3300),
			dep("rook-ceph-mon-b", 1, "quay.io/ceph/ceph:v19.2.3", 3300),
			dep("rook-ceph-mon-c", 1, "quay.io/ceph/ceph:v19.2.3", 3300),
			dep("rook-ceph-mgr-a", 1, "quay.io/ceph/ceph:v19.2.3", 9283),
			dep("rook-ceph-mgr-b", 1, "quay.io/ceph/ceph:v19.2.3", 9283),
			dep("rook-ceph-osd-0", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("rook-ceph-osd-1", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("rook-ceph-osd-2", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("rook-ceph-osd-3", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("rook-ceph-osd-4", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("rook-ceph-osd-5", 1, "quay.io/ceph/ceph:v19.2.3", 6800),
			dep("csi-rbdplugin-provisioner", 2, "quay.io/cephcsi/cephcsi:v3.15.0", 8080),
			dep("csi-cephfsplugin-provisioner", 2, "quay.io/cephcsi/cephcsi:v3.15.0", 8081),
			ds("csi-rbdplugin", "quay.io/cephcsi/cephcsi:v3.15.0", 9090),
			ds("csi-cephfsplugin", "quay.io/cephcsi/cephcsi:v3.15.0", 9091),
		}},
		{"local-path", "local-path-storage", []InstallWorkload{
			dep("local-path-provisioner", 1, "docker.io/rancher/local-path-provisioner:v0.0.32", 0),
		}},
		{"longhorn", "longhorn-system", []InstallWorkload{
			ds("longhorn-manager", "docker.io/longhornio/longhorn-manager:v1.10.1", 9500),
			dep("longhorn-driver-deployer", 1, "docker.io/longhornio/longhorn-manager:v1.10.1", 0),
			dep("longhorn-ui", 2, "docker.io/longhornio/longhorn-ui:v1.10.1", 8000),
		}},
		{"cnpg", "cnpg-system", []InstallWorkload{
			dep("cnpg-controller-manager", 1, "ghcr.io/cloudnative-pg/cloudnative-pg:1.27.1", 9443),
		}},
		{"kube-prometheus-stack", "monitoring", []InstallWorkload{
			dep("kube-prometheus-stack-operator", 1, "quay.io/prometheus-operator/prometheus-operator:v0.86.2", 10250),
			dep("kube-prometheus-stack-kube-state-metrics", 1, "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.17.0", 8080),
			dep("kube-prometheus-stack-grafana", 1, "docker.io/grafana/grafana:12.2.1", 3000),
			ds("kube-prometheus-stack-prometheus-node-exporter", "quay.io/prometheus/node-exporter:v1.10.2", 9100),
			sts("prometheus-kube-prometheus-stack-prometheus", 2, "quay.io/prometheus/prometheus:v3.7.3", 9090),
			sts("alertmanager-kube-prometheus-stack-alertmanager", 3, "quay.io/prometheus/alertmanager:v0.29.0", 9093),
		}},
		{"argocd", "argocd", []InstallWorkload{
			dep("argocd-server", 2, "quay.io/argoproj/argocd:v3.2.0", 8080),
			dep("argocd-repo-server", 2, "quay.io/argoproj/argocd:v3.2.0", 8081),
			dep("argocd-redis", 1, "docker.io/library/redis:8.2.2-alpine", 6379),
			dep("argocd-dex-server", 1, "ghcr.io/dexidp/dex:v2.44.0", 5556),
			dep("argocd-applicationset-controller", 1, "quay.io/argoproj/argocd:v3.2.0", 7000),
			dep("argocd-notifications-controller", 1, "quay.io/argoproj/argocd:v3.2.0", 9001),
			sts("argocd-application-controller", 1, "quay.io/argoproj/argocd:v3.2.0", 8082),
		}},
		{"flux", "flux-system", []InstallWorkload{
			dep("source-controller", 1, "ghcr.io/fluxcd/source-controller:v1.7.3", 9090),
			dep("kustomize-controller", 1, "ghcr.io/fluxcd/kustomize-controller:v1.7.2", 8080),
			dep("helm-controller", 1, "ghcr.io/fluxcd/helm-controller:v1.4.3", 8080),
			dep("notification-controller", 1, "ghcr.io/fluxcd/notification-controller:v1.7.4", 9090),
		}},
		{"cert-manager", "cert-manager", []InstallWorkload{
			dep("cert-manager", 1, "quay.io/jetstack/cert-manager-controller:v1.19.1", 9402),
			dep("cert-manager-cainjector", 1, "quay.io/jetstack/cert-manager-cainjector:v1.19.1", 9402),
			dep("cert-manager-webhook", 1, "quay.io/jetstack/cert-manager-webhook:v1.19.1", 10250),
		}},
		{"ingress-nginx", "ingress-nginx", []InstallWorkload{
			dep("ingress-nginx-controller", 3, "registry.k8s.io/ingress-nginx/controller:v1.14.0", 80),
		}},
		{"metallb", "metallb-system", []InstallWorkload{
			dep("controller", 1, "quay.io/metallb/controller:v0.15.2", 7472),
			ds("speaker", "quay.io/metallb/speaker:v0.15.2", 7472),
		}},
		{"external-secrets", "external-secrets", []InstallWorkload{
			dep("external-secrets", 1, "ghcr.io/external-secrets/external-secrets:v0.20.4", 8080),
			dep("external-secrets-webhook", 1, "ghcr.io/external-secrets/external-secrets:v0.20.4", 10250),
			dep("external-secrets-cert-controller", 1, "ghcr.io/external-secrets/external-secrets:v0.20.4", 8080),
		}},
		{"metrics-server", "kube-system", []InstallWorkload{
			dep("metrics-server", 2, "registry.k8s.io/metrics-server/metrics-server:v0.8.0", 10250),
		}},
		{"registry", "registry", []InstallWorkload{
			dep("registry", 2, "docker.io/library/registry:3.0.0", 5000),
		}},
		{"harbor", "harbor", []InstallWorkload{
			dep("harbor-core", 2, "docker.io/goharbor/harbor-core:v2.14.0", 8080),
			dep("harbor-portal", 2, "docker.io/goharbor/harbor-portal:v2.14.0", 8080),
			dep("harbor-registry", 2, "docker.io/goharbor/registry-photon:v2.14.0", 5000),
			dep("harbor-jobservice", 1, "docker.io/goharbor/harbor-jobservice:v2.14.0", 8080),
			sts("harbor-database", 1, "docker.io/goharbor/harbor-db:v2.14.0", 5432),
			sts("harbor-redis", 1, "docker.io/goharbor/redis-photon:v2.14.0", 6379),
			sts("harbor-trivy", 1, "docker.io/goharbor/trivy-adapter-photon:v2.14.0", 8080),
		}},
	}
}

// podTemplate is the pod template of w: one container with the arguments,
// ports, probes, resources and security context a chart renders.
func podTemplate(in Install, w InstallWorkload) corev1.PodTemplateSpec {
	labels := map[string]string{
		"app.kubernetes.io/name":       w.Name,
		"app.kubernetes.io/instance":   w.Name,
		"app.kubernetes.io/part-of":    partOf(in),
		"app.kubernetes.io/managed-by": "Helm",
	}
	c := corev1.Container{
		Name:            strings.TrimSuffix(w.Name, "-controller"),
		Image:           w.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{"--log-level=info", "--metrics-bind-address=:" + itoa(int(max(w.Port, 8080))), "--leader-elect=true", "--health-probe-bind-address=:8081"},
		Env: []corev1.EnvVar{
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "GOMAXPROCS", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
		},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8081)}},
			InitialDelaySeconds: 15, PeriodSeconds: 20, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8081)}},
			InitialDelaySeconds: 5, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			ReadOnlyRootFilesystem:   ptr(true),
			RunAsNonRoot:             ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts:             []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
	if w.Port > 0 {
		c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: w.Port, Protocol: corev1.ProtocolTCP}}
	}
	spec := corev1.PodSpec{
		Containers:                    []corev1.Container{c},
		ServiceAccountName:            w.Name,
		RestartPolicy:                 corev1.RestartPolicyAlways,
		DNSPolicy:                     corev1.DNSClusterFirst,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		SchedulerName:                 "default-scheduler",
		PriorityClassName:             "system-cluster-critical",
		Volumes:                       []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		Tolerations:                   []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
	}
	if w.Kind == "DaemonSet" {
		spec.HostNetwork = true
		spec.PriorityClassName = "system-node-critical"
		spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}
}

func partOf(in Install) string {
	if in.Layer == "" {
		return "kubernetes"
	}
	return in.Layer
}

func workloadMeta(in Install, w InstallWorkload) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      w.Name,
		Namespace: in.Namespace,
		Labels: map[string]string{
			"app.kubernetes.io/name":       w.Name,
			"app.kubernetes.io/part-of":    partOf(in),
			"app.kubernetes.io/managed-by": "Helm",
			"helm.sh/chart":                partOf(in) + "-1.0.0",
		},
		Annotations: map[string]string{"meta.helm.sh/release-name": partOf(in), "meta.helm.sh/release-namespace": in.Namespace},
	}
}

func genDeployment(in Install, w InstallWorkload) *appsv1.Deployment {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": w.Name, "app.kubernetes.io/instance": w.Name}}
	now := metav1.Now()
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: workloadMeta(in, w),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(w.Replicas),
			Selector: sel,
			Template: podTemplate(in, w),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%")),
			}},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 1,
			Replicas:           w.Replicas, UpdatedReplicas: w.Replicas, ReadyReplicas: w.Replicas, AvailableReplicas: w.Replicas,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now, Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", w.Name+"-7d9f8b6c5d")},
			},
		},
	}
}

func genDaemonSet(in Install, w InstallWorkload, nodes int32) *appsv1.DaemonSet {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": w.Name, "app.kubernetes.io/instance": w.Name}}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: workloadMeta(in, w),
		Spec: appsv1.DaemonSetSpec{
			Selector: sel,
			Template: podTemplate(in, w),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{
				MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromInt32(0)),
			}},
			RevisionHistoryLimit: ptr(int32(10)),
		},
		Status: appsv1.DaemonSetStatus{
			ObservedGeneration:     1,
			CurrentNumberScheduled: nodes, DesiredNumberScheduled: nodes, NumberReady: nodes,
			UpdatedNumberScheduled: nodes, NumberAvailable: nodes,
		},
	}
}

func genStatefulSet(in Install, w InstallWorkload) *appsv1.StatefulSet {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": w.Name, "app.kubernetes.io/instance": w.Name}}
	fs := corev1.PersistentVolumeFilesystem
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: workloadMeta(in, w),
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr(w.Replicas),
			Selector:            sel,
			Template:            podTemplate(in, w),
			ServiceName:         w.Name + "-headless",
			PodManagementPolicy: appsv1.ParallelPodManagement,
			UpdateStrategy:      appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					StorageClassName: ptr("rook-ceph-block"),
					VolumeMode:       &fs,
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("50Gi")}},
				},
			}},
		},
		Status: appsv1.StatefulSetStatus{
			ObservedGeneration: 1,
			Replicas:           w.Replicas, ReadyReplicas: w.Replicas, CurrentReplicas: w.Replicas,
			UpdatedReplicas: w.Replicas, AvailableReplicas: w.Replicas,
			CurrentRevision: w.Name + "-5c8d7f9b6", UpdateRevision: w.Name + "-5c8d7f9b6",
		},
	}
}

// crdDef is one CRD of the catalog: its group, version and kind as the
// upstream project publishes it.
type crdDef struct {
	group, version, kind string
	cluster              bool
}

// plural lower-cases kind and adds the English plural ending.
func (c crdDef) plural() string {
	k := strings.ToLower(c.kind)
	switch {
	case strings.HasSuffix(k, "y") && !strings.ContainsAny(k[len(k)-2:len(k)-1], "aeiou"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "ch"):
		return k + "es"
	}
	return k + "s"
}

// Name is the CRD's object name, PLURAL.GROUP.
func (c crdDef) Name() string { return c.plural() + "." + c.group }

func crds(group, version string, clusterKinds []string, kinds ...string) []crdDef {
	var out []crdDef
	for _, k := range kinds {
		cl := false
		for _, c := range clusterKinds {
			cl = cl || c == k
		}
		out = append(out, crdDef{group, version, k, cl})
	}
	return out
}

// crdCatalog holds 150 CRDs in 20 groups, as the projects publish them:
// those of the installed layers, then common add-ons (snapshots, Gateway
// API, KEDA, Kyverno, Velero).
var crdCatalog = concat(
	crds("cilium.io", "v2", []string{"CiliumClusterwideNetworkPolicy", "CiliumIdentity", "CiliumNode", "CiliumExternalWorkload", "CiliumLoadBalancerIPPool", "CiliumCIDRGroup", "CiliumL2AnnouncementPolicy", "CiliumPodIPPool", "CiliumBGPClusterConfig", "CiliumBGPPeerConfig", "CiliumBGPAdvertisement", "CiliumBGPNodeConfig", "CiliumClusterwideEnvoyConfig", "CiliumEgressGatewayPolicy"},
		"CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy", "CiliumEndpoint", "CiliumIdentity", "CiliumNode",
		"CiliumExternalWorkload", "CiliumLocalRedirectPolicy", "CiliumEgressGatewayPolicy", "CiliumLoadBalancerIPPool",
		"CiliumNodeConfig", "CiliumCIDRGroup", "CiliumL2AnnouncementPolicy", "CiliumPodIPPool", "CiliumBGPClusterConfig",
		"CiliumBGPPeerConfig", "CiliumBGPAdvertisement", "CiliumBGPNodeConfig", "CiliumEnvoyConfig", "CiliumClusterwideEnvoyConfig"),
	crds("ceph.rook.io", "v1", nil,
		"CephCluster", "CephBlockPool", "CephFilesystem", "CephObjectStore", "CephObjectStoreUser", "CephNFS",
		"CephClient", "CephRBDMirror", "CephFilesystemMirror", "CephBucketNotification", "CephBucketTopic",
		"CephFilesystemSubVolumeGroup", "CephBlockPoolRadosNamespace", "CephObjectRealm", "CephObjectZoneGroup",
		"CephObjectZone", "CephCOSIDriver"),
	crds("longhorn.io", "v1beta2", nil,
		"Volume", "Engine", "Replica", "Setting", "EngineImage", "Node", "InstanceManager", "ShareManager",
		"BackingImage", "BackingImageManager", "BackingImageDataSource", "BackupTarget", "BackupVolume", "Backup",
		"RecurringJob", "Orphan", "Snapshot", "SupportBundle", "SystemBackup", "SystemRestore", "VolumeAttachment",
		"BackupBackingImage"),
	crds("postgresql.cnpg.io", "v1", []string{"ClusterImageCatalog"},
		"Cluster", "Backup", "ScheduledBackup", "Pooler", "ImageCatalog", "ClusterImageCatalog", "Database",
		"Publication", "Subscription", "FailoverQuorum"),
	crds("monitoring.coreos.com", "v1", nil,
		"AlertmanagerConfig", "Alertmanager", "PodMonitor", "Probe", "PrometheusAgent", "Prometheus",
		"PrometheusRule", "ScrapeConfig", "ServiceMonitor", "ThanosRuler"),
	crds("argoproj.io", "v1alpha1", nil, "Application", "ApplicationSet", "AppProject"),
	crds("source.toolkit.fluxcd.io", "v1", nil, "GitRepository", "HelmRepository", "HelmChart", "Bucket", "OCIRepository"),
	crds("kustomize.toolkit.fluxcd.io", "v1", nil, "Kustomization"),
	crds("helm.toolkit.fluxcd.io", "v2", nil, "HelmRelease"),
	crds("notification.toolkit.fluxcd.io", "v1beta3", nil, "Alert", "Provider", "Receiver"),
	crds("cert-manager.io", "v1", []string{"ClusterIssuer"}, "Certificate", "CertificateRequest", "Issuer", "ClusterIssuer"),
	crds("acme.cert-manager.io", "v1", nil, "Order", "Challenge"),
	crds("metallb.io", "v1beta1", nil, "BFDProfile", "BGPAdvertisement", "BGPPeer", "Community", "IPAddressPool", "L2Advertisement", "ServiceL2Status"),
	crds("external-secrets.io", "v1", []string{"ClusterExternalSecret", "ClusterSecretStore"}, "ExternalSecret", "ClusterExternalSecret", "SecretStore", "ClusterSecretStore", "PushSecret"),
	crds("generators.external-secrets.io", "v1alpha1", []string{"ClusterGenerator"},
		"ACRAccessToken", "ECRAuthorizationToken", "Fake", "GCRAccessToken", "GithubAccessToken", "Password",
		"VaultDynamicSecret", "Webhook", "ClusterGenerator", "UUID"),
	crds("snapshot.storage.k8s.io", "v1", []string{"VolumeSnapshotClass", "VolumeSnapshotContent"}, "VolumeSnapshot", "VolumeSnapshotClass", "VolumeSnapshotContent"),
	crds("gateway.networking.k8s.io", "v1", []string{"GatewayClass"}, "Gateway", "GatewayClass", "HTTPRoute", "GRPCRoute", "ReferenceGrant"),
	crds("keda.sh", "v1alpha1", []string{"ClusterTriggerAuthentication"}, "ScaledObject", "ScaledJob", "TriggerAuthentication", "ClusterTriggerAuthentication"),
	crds("kyverno.io", "v1", []string{"ClusterPolicy", "ClusterCleanupPolicy"}, "Policy", "ClusterPolicy", "PolicyException", "UpdateRequest", "CleanupPolicy", "ClusterCleanupPolicy"),
	crds("velero.io", "v1", nil,
		"Backup", "Restore", "Schedule", "BackupStorageLocation", "VolumeSnapshotLocation", "PodVolumeBackup",
		"PodVolumeRestore", "DownloadRequest", "DeleteBackupRequest", "ServerStatusRequest", "BackupRepository",
		"DataUpload", "DataDownload"),
)

func concat[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// CRDNames returns the object names (PLURAL.GROUP) of the CRDs Generate
// creates for at most n of them (n <= 0: all 150), in creation order.
func CRDNames(n int) []string {
	if n <= 0 || n > len(crdCatalog) {
		n = len(crdCatalog)
	}
	out := make([]string, n)
	for i, c := range crdCatalog[:n] {
		out[i] = c.Name()
	}
	return out
}

var schemaWords = []string{
	"address", "backend", "bucket", "cert", "class", "config", "data", "device", "endpoint", "filter",
	"gateway", "health", "interval", "key", "label", "limit", "mode", "name", "node", "path", "peer",
	"placement", "policy", "pool", "port", "priority", "provider", "ref", "region", "replica", "retention",
	"role", "rule", "schedule", "secret", "selector", "service", "size", "source", "storage", "target",
	"template", "timeout", "tls", "token", "url", "version", "volume", "weight", "zone",
}

var descWords = []string{
	"the", "of", "is", "to", "a", "when", "controller", "resource", "field", "value", "set", "defaults",
	"used", "by", "this", "must", "be", "if", "not", "specified", "cluster", "object", "which", "in",
	"reference", "name", "namespace", "applies", "only", "enabled", "configuration", "for", "each",
}

func sentence(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := 0; i < words; i++ {
		w := descWords[rng.IntN(len(descWords))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

func propName(rng *rand.Rand) string {
	a := schemaWords[rng.IntN(len(schemaWords))]
	b := schemaWords[rng.IntN(len(schemaWords))]
	return a + strings.ToUpper(b[:1]) + b[1:]
}

// genProps returns an OpenAPI v3 structural "properties" map of n fields,
// nested up to depth levels: strings (some enums, some patterns), integers
// with bounds, booleans, string lists, nested objects and lists of objects,
// each with a description, as controller-gen renders them.
func genProps(rng *rand.Rand, n, depth int) map[string]any {
	props := map[string]any{}
	for len(props) < n {
		name := propName(rng)
		if _, dup := props[name]; dup {
			continue
		}
		desc := sentence(rng, 8+rng.IntN(30))
		kind := rng.IntN(10)
		if depth <= 0 && kind >= 7 {
			kind = rng.IntN(7)
		}
		var p map[string]any
		switch kind {
		case 0, 1:
			p = map[string]any{"type": "string"}
		case 2:
			p = map[string]any{"type": "string", "enum": []any{"Always", "IfNotPresent", "Never"}}
		case 3:
			p = map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`}
		case 4:
			p = map[string]any{"type": "integer", "format": "int32", "minimum": int64(0), "maximum": int64(65535)}
		case 5:
			p = map[string]any{"type": "boolean"}
		case 6:
			p = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case 7, 8:
			p = map[string]any{"type": "object", "properties": genProps(rng, 3+rng.IntN(6), depth-1)}
		default:
			p = map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "properties": genProps(rng, 2+rng.IntN(5), depth-1),
			}}
		}
		p["description"] = desc
		props[name] = p
	}
	return props
}

// conditionsSchema is the schema of metav1.Condition lists, as
// controller-gen writes it into every CRD with status conditions.
func conditionsSchema() map[string]any {
	return map[string]any{
		"type":        "array",
		"description": "Conditions represent the latest available observations of the object's state.",
		"items": map[string]any{
			"type":     "object",
			"required": []any{"lastTransitionTime", "message", "reason", "status", "type"},
			"properties": map[string]any{
				"lastTransitionTime": map[string]any{"type": "string", "format": "date-time", "description": "lastTransitionTime is the last time the condition transitioned from one status to another."},
				"message":            map[string]any{"type": "string", "maxLength": int64(32768), "description": "message is a human readable message indicating details about the transition."},
				"observedGeneration": map[string]any{"type": "integer", "format": "int64", "minimum": int64(0), "description": "observedGeneration represents the .metadata.generation that the condition was set based upon."},
				"reason":             map[string]any{"type": "string", "maxLength": int64(1024), "minLength": int64(1), "pattern": `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`, "description": "reason contains a programmatic identifier indicating the reason for the condition's last transition."},
				"status":             map[string]any{"type": "string", "enum": []any{"True", "False", "Unknown"}, "description": "status of the condition, one of True, False, Unknown."},
				"type":               map[string]any{"type": "string", "maxLength": int64(316), "pattern": `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`, "description": "type of condition in CamelCase or in foo.example.com/CamelCase."},
			},
		},
		"x-kubernetes-list-map-keys": []any{"type"},
		"x-kubernetes-list-type":     "map",
	}
}

// genCRD renders c as an apiextensions.k8s.io/v1 CustomResourceDefinition
// with a structural schema of 15 to 60 spec fields (two levels of nesting),
// a status with conditions, printer columns and the status subresource.
func genCRD(c crdDef, rng *rand.Rand, i int) *unstructured.Unstructured {
	schema := map[string]any{
		"type":        "object",
		"description": c.kind + " is the Schema for the " + c.plural() + " API.",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
			"kind":       map[string]any{"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
			"metadata":   map[string]any{"type": "object"},
			"spec": map[string]any{
				"type":        "object",
				"description": c.kind + "Spec defines the desired state of " + c.kind + ".",
				"properties":  genProps(rng, 15+rng.IntN(46), 2),
				// The fields of the status objects' specs the generated
				// schema does not name (a CephCluster's health check
				// interval) are kept.
				"x-kubernetes-preserve-unknown-fields": true,
			},
			"status": map[string]any{
				"type":        "object",
				"description": c.kind + "Status defines the observed state of " + c.kind + ".",
				// The operators' own status fields (Ceph's health, an
				// Application's sync) are kept as written.
				"x-kubernetes-preserve-unknown-fields": true,
				"properties": map[string]any{
					"conditions":         conditionsSchema(),
					"observedGeneration": map[string]any{"type": "integer", "format": "int64"},
					"phase":              map[string]any{"type": "string"},
				},
			},
		},
	}
	scope := "Namespaced"
	if c.cluster {
		scope = "Cluster"
	}
	project := strings.SplitN(c.group, ".", 2)[0]
	annotations := map[string]any{"controller-gen.kubebuilder.io/version": "v0.19.0"}
	if strings.HasSuffix(c.group, ".k8s.io") {
		// Groups under k8s.io are protected: the apiserver wants the
		// approval annotation the upstream CRDs carry.
		annotations["api-approved.kubernetes.io"] = "https://github.com/kubernetes/enhancements/pull/1111"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata": map[string]any{
			"name": c.Name(),
			"labels": map[string]any{
				"app.kubernetes.io/part-of": project,
			},
			"annotations": annotations,
		},
		"spec": map[string]any{
			"group": c.group,
			"names": map[string]any{
				"kind":     c.kind,
				"listKind": c.kind + "List",
				"plural":   c.plural(),
				"singular": strings.ToLower(c.kind),
			},
			"scope": scope,
			"versions": []any{map[string]any{
				"name":    c.version,
				"served":  true,
				"storage": true,
				"schema":  map[string]any{"openAPIV3Schema": schema},
				"subresources": map[string]any{
					"status": map[string]any{},
				},
				"additionalPrinterColumns": []any{
					map[string]any{"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
					map[string]any{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
				},
			}},
		},
	}}
}
