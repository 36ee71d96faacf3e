package topology

// The status resources of the catalog layers (LayerDef.Status). Versions are
// those the upstream CRDs serve in the releases named in each Source (read
// from the CRDs those releases ship: the served and storage versions of
// spec.versions); Fields are what the layer's rule (health/<operator>.go) reads.

// Paths of the fields the rules read, one name per path.
const (
	FieldPhase              = "status.phase"
	FieldState              = "status.state"
	FieldMessage            = "status.message"
	FieldCephHealth         = "status.ceph.health"
	FieldCephLastChecked    = "status.ceph.lastChecked"
	FieldCephCheckInterval  = "spec.healthCheck.daemonHealth.status.interval"
	FieldCephCheckDisabled  = "spec.healthCheck.daemonHealth.status.disabled"
	FieldPhaseReason        = "status.phaseReason"
	FieldInstances          = "spec.instances"
	FieldReadyInstances     = "status.readyInstances"
	FieldBackupCluster      = "spec.cluster.name"
	FieldBackupStarted      = "status.startedAt"
	FieldBackupError        = "status.error"
	FieldRobustness         = "status.robustness"
	FieldReplicas           = "spec.replicas"
	FieldAvailableReplicas  = "status.availableReplicas"
	FieldPaused             = "status.paused"
	FieldNotAfter           = "status.notAfter"
	FieldRenewalTime        = "status.renewalTime"
	FieldSuspend            = "spec.suspend"
	FieldAppHealth          = "status.health.status"
	FieldAppSync            = "status.sync.status"
	FieldAppOperationPhase  = "status.operationState.phase"
	FieldAppOperationReason = "status.operationState.message"
	FieldCephCleanup        = "spec.cleanupPolicy.confirmation"
	FieldSourceType         = "spec.type"
)

// annCNPGReconciliationLoop is the annotation that stops CloudNativePG's
// reconciliation of a Cluster when its value is annCNPGDisabled
// (cloudnative-pg pkg/utils/labels_annotations.go
// ReconciliationLoopAnnotationName, IsReconciliationDisabled; Argo CD's
// health check keys on "cnpg.io/reconciliation", which the operator never
// reads).
const (
	AnnCNPGReconciliationLoop = "cnpg.io/reconciliationLoop"
	AnnCNPGDisabled           = "disabled"
)

// cephCleanupConfirmed is the value of spec.cleanupPolicy.confirmation that
// arms the CephCluster's destruction (rook deploy/examples/cluster.yaml:
// "After the confirmation is set, Rook will immediately stop configuring
// the cluster and only wait for the delete command").
const CephCleanupConfirmed = "yes-really-destroy-data"

var rookCephStatus = []StatusResource{
	{
		Group: "ceph.rook.io", Versions: []string{"v1"}, Resource: "cephclusters", Kind: "CephCluster", Namespaced: true,
		Fields:  []string{FieldCephHealth, FieldCephLastChecked, FieldPhase, FieldState, FieldMessage, FieldCephCheckInterval, FieldCephCheckDisabled, FieldCephCleanup},
		Checks:  "status.ceph.details",
		Decides: true,
		Source:  "rook/rook v1.18 deploy/examples/crds.yaml (cephclusters.ceph.rook.io v1: status.ceph.health, details, lastChecked; status.phase, state, message; spec.cleanupPolicy.confirmation), deploy/examples/cluster.yaml (a confirmed cleanup policy stops the configuration), pkg/apis/ceph.rook.io/v1/types.go (condition DeletionIsBlocked), pkg/operator/ceph/cluster/cephstatus.go (the status check, every spec.healthCheck.daemonHealth.status.interval, 60s by default); argoproj/argo-cd resource_customizations/ceph.rook.io/CephCluster/health.lua",
	},
	{
		Group: "ceph.rook.io", Versions: []string{"v1"}, Resource: "cephblockpools", Kind: "CephBlockPool", Namespaced: true,
		Fields:  []string{FieldPhase},
		Decides: true,
		Source:  "rook/rook v1.18 deploy/examples/crds.yaml (cephblockpools.ceph.rook.io v1: status.phase Progressing, Ready, Failure)",
	},
	{
		Group: "ceph.rook.io", Versions: []string{"v1"}, Resource: "cephfilesystems", Kind: "CephFilesystem", Namespaced: true,
		Fields:  []string{FieldPhase},
		Decides: true,
		Source:  "rook/rook v1.18 deploy/examples/crds.yaml (cephfilesystems.ceph.rook.io v1: status.phase Progressing, Ready, Failure)",
	},
}

var cnpgStatus = []StatusResource{
	{
		Group: "postgresql.cnpg.io", Versions: []string{"v1"}, Resource: "clusters", Kind: "Cluster", Namespaced: true,
		Fields:      []string{FieldPhase, FieldPhaseReason, FieldInstances, FieldReadyInstances},
		Annotations: []string{AnnCNPGReconciliationLoop},
		Decides:     true,
		Source:      "cloudnative-pg/cloudnative-pg v1.28 pkg/utils/labels_annotations.go (cnpg.io/reconciliationLoop: disabled), docs/src/failure_modes.md (a disabled reconciliation loop stops updates, self-healing and failover), api/v1/cluster_types.go (status.phase values Phase*, status.readyInstances, spec.instances; conditions Ready, ContinuousArchiving, LastBackupSucceeded, cnpg.io/hibernation), config/crd/bases/postgresql.cnpg.io_clusters.yaml; argoproj/argo-cd resource_customizations/postgresql.cnpg.io/Cluster/health.lua",
	},
	{
		Group: "postgresql.cnpg.io", Versions: []string{"v1"}, Resource: "backups", Kind: "Backup", Namespaced: true,
		Fields: []string{FieldBackupCluster, FieldPhase, FieldBackupStarted, FieldBackupError},
		Source: "cloudnative-pg/cloudnative-pg v1.28 api/v1/backup_types.go (spec.cluster.name; status.phase pending, started, running, finalizing, completed, failed, walArchivingFailing; status.startedAt, status.error)",
	},
}

var longhornStatus = []StatusResource{
	{
		Group: "longhorn.io", Versions: []string{"v1beta2"}, Resource: "nodes", Kind: "Node", Namespaced: true,
		Decides: true,
		Source:  "longhorn/longhorn-manager v1.10 k8s/pkg/apis/longhorn/v1beta2/node.go (conditions Ready, Schedulable and their reasons), k8s/crds.yaml",
	},
	{
		Group: "longhorn.io", Versions: []string{"v1beta2"}, Resource: "volumes", Kind: "Volume", Namespaced: true,
		Fields:  []string{FieldRobustness, FieldState},
		Decides: true,
		Source:  "longhorn/longhorn-manager v1.10 k8s/pkg/apis/longhorn/v1beta2/volume.go (status.state creating, attached, detached, attaching, detaching, deleting; status.robustness healthy, degraded while attached, faulted, unknown)",
	},
}

var prometheusStatus = []StatusResource{
	{
		Group: "monitoring.coreos.com", Versions: []string{"v1"}, Resource: "prometheuses", Kind: "Prometheus", Namespaced: true,
		Fields:  []string{FieldReplicas, FieldAvailableReplicas, FieldPaused},
		Decides: true,
		Source:  "prometheus-operator/prometheus-operator v0.85 pkg/operator/statefulset_reporter.go (condition Available: True, Degraded with reason SomePodsNotReady, False with NoPodReady or StatefulSetNotFound), the Reconciled condition, status.paused (spec.paused: only deletions are performed), example/prometheus-operator-crd/monitoring.coreos.com_prometheuses.yaml; argoproj/argo-cd resource_customizations/monitoring.coreos.com/Prometheus/health.lua",
	},
	{
		Group: "monitoring.coreos.com", Versions: []string{"v1"}, Resource: "alertmanagers", Kind: "Alertmanager", Namespaced: true,
		Fields:  []string{FieldReplicas, FieldAvailableReplicas, FieldPaused},
		Decides: true,
		Source:  "prometheus-operator/prometheus-operator v0.85 example/prometheus-operator-crd/monitoring.coreos.com_alertmanagers.yaml (the same Available and Reconciled conditions as Prometheus)",
	},
}

var certManagerStatus = []StatusResource{
	{
		Group: "cert-manager.io", Versions: []string{"v1"}, Resource: "clusterissuers", Kind: "ClusterIssuer",
		Decides: true,
		Source:  "cert-manager/cert-manager v1.21 pkg/apis/certmanager/v1/types_issuer.go (condition Ready), deploy/crds/cert-manager.io_clusterissuers.yaml; argoproj/argo-cd resource_customizations/cert-manager.io/ClusterIssuer/health.lua",
	},
	{
		Group: "cert-manager.io", Versions: []string{"v1"}, Resource: "issuers", Kind: "Issuer", Namespaced: true,
		Source: "cert-manager/cert-manager v1.21 pkg/apis/certmanager/v1/types_issuer.go (condition Ready), deploy/crds/cert-manager.io_issuers.yaml; argoproj/argo-cd resource_customizations/cert-manager.io/Issuer/health.lua",
	},
	{
		Group: "cert-manager.io", Versions: []string{"v1"}, Resource: "certificates", Kind: "Certificate", Namespaced: true,
		Fields: []string{FieldNotAfter, FieldRenewalTime},
		Source: "cert-manager/cert-manager v1.21 pkg/apis/certmanager/v1/types_certificate.go (conditions Ready and Issuing; status.notAfter, status.renewalTime), deploy/crds/cert-manager.io_certificates.yaml; argoproj/argo-cd resource_customizations/cert-manager.io/Certificate/health.lua",
	},
}

var externalSecretsStatus = []StatusResource{
	{
		Group: "external-secrets.io", Versions: []string{"v1", "v1beta1"}, Resource: "clustersecretstores", Kind: "ClusterSecretStore",
		Decides: true,
		Source:  "external-secrets/external-secrets v0.16 apis/externalsecrets/v1/secretstore_types.go (condition Ready; reasons Valid, InvalidStoreConfiguration, InvalidProviderConfig, ValidationFailed), config/crds/bases (v1 stored, v1beta1 still served); argoproj/argo-cd resource_customizations/external-secrets.io/ClusterSecretStore/health.lua",
	},
	{
		Group: "external-secrets.io", Versions: []string{"v1", "v1beta1"}, Resource: "secretstores", Kind: "SecretStore", Namespaced: true,
		Source: "external-secrets/external-secrets v0.16 apis/externalsecrets/v1/secretstore_types.go (condition Ready); argoproj/argo-cd resource_customizations/external-secrets.io/SecretStore/health.lua",
	},
	{
		Group: "external-secrets.io", Versions: []string{"v1", "v1beta1"}, Resource: "externalsecrets", Kind: "ExternalSecret", Namespaced: true,
		Source: "external-secrets/external-secrets v0.16 apis/externalsecrets/v1/externalsecret_types.go (condition Ready; reasons SecretSynced, SecretSyncedError, SecretDeleted, SecretMissing); argoproj/argo-cd resource_customizations/external-secrets.io/ExternalSecret/health.lua",
	},
}

// fluxKstatus is where the Flux kinds say they follow kstatus.
const fluxKstatus = "conditions Ready, Reconciling, Stalled and status.observedGeneration, the kstatus conventions (kubernetes-sigs/cli-utils pkg/kstatus/README.md) that Flux's APIs follow; spec.suspend"

var fluxStatus = []StatusResource{
	{
		Group: "source.toolkit.fluxcd.io", Versions: []string{"v1"}, Resource: "gitrepositories", Kind: "GitRepository", Namespaced: true,
		Fields: []string{FieldSuspend}, Decides: true,
		Source: "fluxcd/source-controller v1.9 config/crd/bases/source.toolkit.fluxcd.io_gitrepositories.yaml: " + fluxKstatus,
	},
	{
		Group: "source.toolkit.fluxcd.io", Versions: []string{"v1", "v1beta2"}, Resource: "ocirepositories", Kind: "OCIRepository", Namespaced: true,
		Fields: []string{FieldSuspend}, Decides: true,
		Source: "fluxcd/source-controller v1.9 config/crd/bases/source.toolkit.fluxcd.io_ocirepositories.yaml (v1; releases before Flux 2.6 serve v1beta2 only): " + fluxKstatus,
	},
	{
		Group: "source.toolkit.fluxcd.io", Versions: []string{"v1"}, Resource: "helmrepositories", Kind: "HelmRepository", Namespaced: true,
		Fields: []string{FieldSuspend, FieldSourceType},
		Source: "fluxcd/source-controller v1.9 config/crd/bases/source.toolkit.fluxcd.io_helmrepositories.yaml, docs/spec/v1/helmrepositories.md (spec.type oci: a static object, no status): " + fluxKstatus,
	},
	{
		Group: "kustomize.toolkit.fluxcd.io", Versions: []string{"v1"}, Resource: "kustomizations", Kind: "Kustomization", Namespaced: true,
		Fields: []string{FieldSuspend}, Decides: true,
		Source: "fluxcd/kustomize-controller v1.9 config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml: " + fluxKstatus,
	},
	{
		Group: "helm.toolkit.fluxcd.io", Versions: []string{"v2", "v2beta2"}, Resource: "helmreleases", Kind: "HelmRelease", Namespaced: true,
		Fields: []string{FieldSuspend},
		Source: "fluxcd/helm-controller v1.4 config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml (v2 stored; v2beta2 still served): " + fluxKstatus,
	},
}

var argocdStatus = []StatusResource{
	{
		Group: "argoproj.io", Versions: []string{"v1alpha1"}, Resource: "applications", Kind: "Application", Namespaced: true,
		Fields: []string{FieldAppHealth, FieldAppSync, FieldAppOperationPhase, FieldAppOperationReason},
		Source: "argoproj/argo-cd v3.5 pkg/apis/application/v1alpha1/types.go (status.health.status Healthy, Progressing, Degraded, Suspended, Missing, Unknown; status.sync.status Synced, OutOfSync, Unknown; status.operationState.phase Running, Terminating, Failed, Error, Succeeded; status.conditions, an error type ending in Error), manifests/crds/application-crd.yaml (no status subresource)",
	},
}
