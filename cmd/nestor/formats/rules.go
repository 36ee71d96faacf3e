package formats

import "strings"

// The rule ids that are neither a step kind nor a finding kind.
const (
	RuleUnknown  = "unknown"
	RuleWaiting  = "waiting"
	RuleNoReport = "no-report"
)

// RuleInfo describes one rule of the machine formats (a SARIF
// reportingDescriptor): its id (PlanItem.Rule), a short and a full
// description, and its anchor in RUNBOOK.md §9, where the same rule is
// written for operators.
type RuleInfo struct {
	ID    string
	Short string
	Full  string
	// Anchor is the id of the rule's line in RUNBOOK.md ("step-install").
	Anchor string
}

// FindingRules returns every rule, in a fixed order: the step kinds, the finding
// kinds, then unknown and waiting. The texts say what README.md and
// RUNBOOK.md (§2, Kapsule, §8) say of each kind.
func FindingRules() []RuleInfo {
	out := make([]RuleInfo, len(rules))
	copy(out, rules)
	return out
}

// rule returns the rule id, and whether it is one of Rules.
func rule(id string) (RuleInfo, int, bool) {
	for i, r := range rules {
		if r.ID == id {
			return r, i, true
		}
	}
	return RuleInfo{}, -1, false
}

func newRule(id, short, full string) RuleInfo {
	return RuleInfo{ID: id, Short: short, Full: full, Anchor: strings.ReplaceAll(id, "/", "-")}
}

var rules = []RuleInfo{
	newRule("step/create-vm", "A declared node has no VM (lima)", "The lima bench has no VM for a declared node: `limactl start NODE` creates it with the topology's lima: settings."),
	newRule("step/start-vm", "A node's VM is stopped or broken (lima)", "The VM of a declared node is Stopped (start it) or Broken (stop it with `limactl stop -f`, start it; delete and recreate it if it still fails)."),
	newRule("step/bootstrap", "The cluster is not bootstrapped", "No cluster was read: the first control plane is to be bootstrapped (lima: kubeadm init on the first control-plane VM; prod: the upstream provisioning, then `nestor discover --cp NODE`). On a plan marked unverified this assumes an empty cluster."),
	newRule("step/join-node", "A declared node is not registered", "A node the topology declares is not registered in the cluster: join it (kubeadm join), then preview again."),
	newRule("step/repair-node", "A node is not Ready or has the wrong role", "A registered node is not Ready (its kubelet does not post Ready=True), or its roles are not the declared role: fix its kubelet or its control-plane label."),
	newRule("step/upgrade", "The cluster is below kubernetes.version", "The API server (a managed cluster: the cluster) is below the declared kubernetes.version: upgrade the control plane one minor at a time (the version skew policy), then the nodes."),
	newRule("step/upgrade-node", "A kubelet is below kubernetes.version", "A declared node's kubelet is behind the declared kubernetes.version: in the plan's order (a step the control plane needs comes before it), drain the node, upgrade kubeadm and the kubelet one minor at a time, never above the API server, uncordon. A node the topology does not declare gets no step."),
	newRule("step/install", "A declared layer is not on the cluster", "None of a declared layer's signs (CRDs, StorageClasses, workloads) were found: install it from its upstream chart or manifest, then preview again."),
	newRule("step/repair", "A declared layer is degraded", "A declared layer is present but degraded: its workloads are not all available, or its own status resources do not say healthy. The result's message says which."),
	newRule("step/migrate-backend", "The default StorageClass is not the declared backend", "The cluster's default StorageClass does not come from the declared backend (or no default works): make the backend's StorageClass the default."),
	newRule("step/undeclared", "Found on the cluster, not declared", "A node, pool or catalog layer runs on the cluster but the topology does not declare it: information, not a change. Declare it, or remove it from the cluster."),
	newRule("step/create-pool", "A declared pool does not exist (kapsule)", "The cluster has no pool of a declared pool's name: create it (`scw k8s pool create`)."),
	newRule("step/update-pool", "A pool's size or autoscaling differs (kapsule)", "A pool's size or autoscaling range is not the declared one: update it in place (`scw k8s pool update`)."),
	newRule("step/replace-pool", "A pool's node type, zone or another value fixed at creation differs (kapsule)", "A pool's node type, zone, placement group, root volume type or size, or public IP setting cannot change in place: create the new pool, then delete the old one."),
	newRule("step/upgrade-pool", "A pool is below the cluster's version (kapsule)", "A pool runs an older Kubernetes version than its cluster: upgrade it (`scw k8s pool upgrade`)."),
	newRule("step/replace-node", "A node is degraded in a pool without autohealing (kapsule)", "The provider reports a node not ready or failed to create, and its pool has autohealing off: replace the node."),
	newRule("step/update-cluster", "The cluster's auto_upgrade differs (kapsule)", "The cluster's auto-upgrade setting is not the declared kubernetes.auto_upgrade: update the cluster's settings."),
	newRule("step/set-acl", "The API server's ACL differs from scaleway.acl (kapsule)", "The rules of the cluster's API server ACL, compared as a set (the order does not matter), are not the declared scaleway.acl: the step says which ranges it adds and removes. Set them (`scw k8s acl set`); check first that your own address stays in the list."),
	newRule("step/rename-cluster", "The cluster's name differs from scaleway.cluster_name (kapsule)", "The cluster's name is not the declared scaleway.cluster_name: the provider renames in place, but it is not a cosmetic change — it redeploys the control plane and restarts the CSI pods (the warning under the step). Rename in a maintenance window, or declare the name the cluster has."),
	newRule("step/set-type", "The cluster's type differs from scaleway.type (kapsule)", "The cluster's control-plane offer is not the declared scaleway.type: change it in place (`scw k8s cluster set-type`). Moving up, to a type the cluster's available-types lists, starts that type's commitment (30 days for a dedicated offer), during which the cluster cannot move down; moving down waits for commitment_ends_at, and to the mutualised plane it also needs etcd under that plane's quota (unknown until /metrics is read)."),
	newRule("finding/downgrade", "kubernetes.version is below what runs", "The declared kubernetes.version is below the API server's or a kubelet's version: nestor plans upgrades only (a downgrade is a restore): fix kubernetes.version."),
	newRule("finding/kubelet-newer", "A kubelet is newer than the API server", "A kubelet newer than kube-apiserver is not supported by the version skew policy: upgrade the control plane, or reinstall that node's kubelet at the server's minor."),
	newRule("finding/kubelet-skew", "A kubelet is as far behind as the skew policy allows, or farther", "A kubelet three minors behind the API server (two below 1.25) or more: the next control-plane upgrade would break it, or it is already unsupported. Upgrade that kubelet first."),
	newRule("finding/kubelet-behind", "A kubelet is behind the API server, within the allowed skew", "A kubelet is behind the API server within the version skew policy, and no kubernetes.version asks for its upgrade: declare kubernetes.version to plan upgrade-node steps."),
	newRule("finding/kubelet-version-unknown", "A node reports no kubelet version nestor can read", "A node's status.nodeInfo.kubeletVersion is empty or does not parse, and nothing planned depends on it."),
	newRule("finding/end-of-life", "A minor in use is past its end of life", "A Kubernetes minor the cluster runs is past its end of life upstream: no more patch releases, security fixes included. Plan the upgrade now."),
	newRule("finding/end-of-life-soon", "A minor in use reaches its end of life soon", "A Kubernetes minor the cluster runs reaches its end of life upstream within 90 days: schedule the upgrade before that date."),
	newRule("finding/calendar-unknown", "A minor in use is not in nestor's calendar", "A Kubernetes minor newer than this nestor's embedded support calendar: its dates are not known here and nothing is assumed. Update nestor."),
	newRule("finding/locked", "The provider locked the cluster or a pool (kapsule)", "The provider reports the cluster, a pool or a node locked: nestor plans nothing for it. Contact the provider's support."),
	newRule("finding/degraded", "The provider reports a pool or node degraded (kapsule)", "The provider reports a pool in warning or a node not ready; with autohealing on, the provider replaces the node itself."),
	newRule("finding/provider-versions", "What the provider offers or applies (kapsule)", "What the provider's version list offers the cluster: a patch applied by auto-upgrade, the next minor only after the current upgrade, or upgrade_available disagreeing with the list."),
	newRule("finding/provider-calendar", "The provider's dates for a minor in use (kapsule)", "The provider deprecated a minor in use, or its end of life is near or past (the provider then upgrades the cluster itself), or the provider does not list it."),
	newRule("finding/acl-open", "The API server's ACL admits every address (kapsule)", "A rule of the cluster's API server ACL, read or declared, admits every IPv4 address (0.0.0.0/0 in any spelling, ::ffff:0:0/96) or every IPv6 address of the internet (::/0, 2000::/3), alone or with others: any host may reach the API server, as the provider's default entry does. Declare scaleway.acl with the ranges that need it."),
	newRule("finding/not-in-place", "A declared cluster value cannot change in place (kapsule)", "The declared region, project, CNI, Private Network, pod or service range is not the cluster's, and the provider cannot change it in place: no step is planned. Recreate the cluster with it, or declare what the cluster has."),
	newRule("finding/rename", "Renaming the cluster disrupts it (kapsule)", "Under a rename-cluster step: the provider redeploys the control plane and the job that injects its managed resources, and restarts the CSI pods; pods may stay in ContainerCreating and DNS fail until it recovers, within 1 to 2 hours."),
	newRule("finding/offer", "The declared type cannot be reached in place (kapsule)", "scaleway.type names a type of the other family (kapsule and multicloud): the provider never moves a cluster across families in place, so it is a new cluster, which nestor does not plan. Declare the cluster's own family, or create the new cluster and move the workloads."),
	newRule("finding/headroom", "The cluster nears its offer's limits (kapsule)", "The nodes (now, at the pools' maxima, at the declared maxima) or etcd's size reach 80% of the cluster type's max_nodes or max_etcd_size (a warning), or the declared pools' maxima exceed max_nodes (an error): lower the pools' maxima, move to a larger type (scaleway.type), or compact and defragment etcd."),
	newRule("finding/provider-object-edited", "A provider's object in kube-system was edited (kapsule)", "An object carrying the provider's marks (Kapsule: the k8s.scw.cloud/ labels) was written by another field manager after the provider's own write, beyond its metadata and status: by its addonmanager.kubernetes.io/mode, Reconcile means the provider reverts the edit, EnsureExists that the object is yours from now on. Put the change back, or make it yours knowingly, before the next upgrade."),
	newRule("finding/application", "An Argo CD Application is not Healthy or not Synced", "An Argo CD Application reports a health other than Healthy, a sync other than Synced, or an error condition: `argocd app get NAME` shows why. Argo CD itself runs; what it deploys does not."),
	newRule("finding/certificate", "A cert-manager Certificate is not Ready, or not renewed", "A Certificate is not Ready, is past its renewal time without a renewal, or has expired: `kubectl describe certificate NAME` and `cmctl status certificate NAME` show why."),
	newRule("finding/issuer", "A namespaced cert-manager Issuer is not Ready", "An Issuer of one namespace is not Ready: the certificates of that namespace cannot be issued or renewed. `kubectl describe issuer NAME -n NS` shows why."),
	newRule("finding/secret-store", "A namespaced SecretStore is not Ready", "An external-secrets SecretStore of one namespace cannot reach its provider: the ExternalSecrets that use it do not sync. `kubectl describe secretstore NAME -n NS` shows why."),
	newRule("finding/external-secret", "An ExternalSecret does not sync", "An ExternalSecret is not Ready (SecretSyncedError): its Secret is stale or missing. `kubectl describe externalsecret NAME -n NS` shows why."),
	newRule("finding/flux-object", "A Flux object is not Ready", "A Kustomization, HelmRelease or source other than the flux-system sync is not Ready, stalled, or still reconciling: `flux get all -A` shows which and why."),
	newRule("finding/backup", "A CloudNativePG backup failed", "The latest Backup of a CloudNativePG cluster failed, or its WAL archiving or last backup condition is False: `kubectl cnpg status CLUSTER` shows why."),
	newRule("finding/storage-node", "A Longhorn node takes no new replicas", "A Longhorn node is not schedulable: new replicas go elsewhere, and volumes may not reach their replica count. The Longhorn UI's Node page shows why."),
	newRule("finding/suspended", "An object is suspended by its owner", "An operator's object is suspended or hibernated by its owner: it is not reconciled until it is resumed. Information, not a fault."),
	newRule("finding/status-unread", "A status list could not be read", "A layer's status resources that only feed findings could not be listed (forbidden, timed out): the findings about them are unknown. Grant get/list on them to the preview identity (`nestor rbac`)."),
	newRule("finding/removed-api", "A served API stops being served at the next minor", "The cluster serves a group version, or kinds of it, that the minor it moves to stops serving (the k8s.io/api lifecycle table): an error when this API server recorded clients calling it, else a warning. Move the manifests and clients to the replacement the finding names before the upgrade."),
	newRule("finding/deprecated-api-call", "Clients call a deprecated API", "The API server's apiserver_requested_deprecated_apis gauge recorded requests to a deprecated API since it started: an error when the minor moved to no longer serves it, information when it still does. The gauge is one API server instance's: find the clients in its audit log, or read each instance's /metrics."),
	newRule("finding/layer-unsupported", "A layer's release does not support the next minor", "A declared layer's running release (read from its main workload's image tag) is outside the Kubernetes minors its project supports or tests, for the minor the cluster moves to: upgrade the layer first, as the finding's source says."),
	newRule("finding/drain-blocker", "A PodDisruptionBudget allows no disruption", "A PodDisruptionBudget allows no disruption now: draining a node that runs its pods (the control plane's upgrade for its nodes, upgrade-node, pool upgrades and replacements) waits until it allows one. It is shown under the first planned step that drains such a node, and names the nodes; a budget whose pods run on no node a step drains holds nothing. Bring its pods back to health, or change the budget, before the drain."),
	newRule("finding/upgrade-unknown", "A part of the upgrade judgement is not known", "nestor could not judge part of what the next minor breaks: a source not read (discovery, /metrics — which needs get on the nonResourceURL /metrics —, PodDisruptionBudgets, the layers' images), a minor beyond its lifecycle table, a layer whose release is not in its image tag, a budget whose status is older than its spec. Nothing is claimed for it."),
	newRule(RuleUnknown, "A part of the cluster could not be read", "nestor could not read this part of the actual state (forbidden, timed out, unreachable, a status it does not know): it is unknown, never absent, and nothing is planned for it. Make it readable (the role `nestor rbac` prints, a longer --timeout), then preview again."),
	newRule(RuleNoReport, "No report could be made of the stack", "nestor read nothing it could judge this stack by: its topology is invalid, its target is refused (another cluster's endpoint or identity), unreachable, or the read was interrupted. The result's message says which and why; nothing about the stack is known."),
	newRule(RuleWaiting, "The provider is moving an object (kapsule)", "The provider is creating, updating, upgrading, scaling or deleting this object: not in sync and not a change; nothing is planned for it. Preview again later."),
}
