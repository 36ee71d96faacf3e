package health

import "nestor.dev/nestor/topology"

// judgeExternalSecrets: see judgeIssuersOrStores (ClusterSecretStore,
// SecretStore). An ExternalSecret whose Ready condition is not True is a
// finding (argo-cd
// resource_customizations/external-secrets.io/ExternalSecret/health.lua;
// its reason, SecretSyncedError when the provider refused, is kept).
func judgeExternalSecrets(j *statusJudge) {
	judgeIssuersOrStores(j, "ClusterSecretStore", "SecretStore", topology.FindingSecretStore, "store")
	ess, _ := j.objects("ExternalSecret")
	for _, o := range ess {
		h, says := readyHealth(o)
		j.report(o, h, false, says)
		if h == topology.Degraded {
			j.finding(topology.SeverityWarning, topology.FindingExternalSecret, "ExternalSecret "+o.Ref(), "does not sync: %s", says)
		}
	}
}

// fluxSyncName is the name and namespace of the GitRepository (or
// OCIRepository) and Kustomization that flux bootstrap creates (fluxcd/flux2
// pkg/manifestgen/sync/options.go MakeDefaultOptions).
const fluxSyncName = "flux-system"
