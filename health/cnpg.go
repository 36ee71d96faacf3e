package health

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"nestor.dev/nestor/topology"
)

// cnpgPhases classes each phase of a CloudNativePG Cluster
// (cloudnative-pg api/v1/cluster_types.go Phase*): "healthy", "moving"
// (the operator is at work: degraded and progressing) or "broken"
// (degraded). The anchor is argo-cd
// resource_customizations/postgresql.cnpg.io/Cluster/health.lua, which
// calls the moving ones Progressing or Degraded and the broken ones
// Degraded or Suspended; a phase not listed is unknown.
var cnpgPhases = map[string]string{
	"Cluster in healthy state":                                 "healthy",
	"Setting up primary":                                       "moving",
	"Creating a new replica":                                   "moving",
	"Upgrading cluster":                                        "moving",
	"Waiting for the instances to become active":               "moving",
	"Promoting to primary cluster":                             "moving",
	"Switchover in progress":                                   "moving",
	"Upgrading Postgres major version":                         "moving",
	"Primary instance is being restarted in-place":             "moving",
	"Primary instance is being restarted without a switchover": "moving",
	"Online upgrade in progress":                               "moving",
	"Applying configuration":                                   "moving",
	"Failing over":                                             "broken",
	"Cluster upgrade delayed":                                  "broken",
	"Waiting for user action":                                  "broken",
	"Unable to create required cluster objects":                "broken",
	"Cluster cannot proceed to reconciliation due to an unknown plugin being required":        "broken",
	"Cluster cannot proceed to reconciliation due to an error while interacting with plugins": "broken",
	"Cluster has incomplete or invalid image catalog":                                         "broken",
	"Cluster is unrecoverable and needs manual intervention":                                  "broken",
	"Cluster cannot execute instance online upgrade due to missing architecture binary":       "broken",
}

// judgeCNPG: a Cluster annotated cnpg.io/reconciliationLoop: disabled is
// suspended, whatever its status says: the operator "will stop processing
// updates" to it, "including self-healing actions and failover"
// (cloudnative-pg docs/src/failure_modes.md; the annotation and its value
// pkg/utils/labels_annotations.go IsReconciliationDisabled), so its phase
// and ready instances are frozen at the moment the loop stopped. A Cluster
// is healthy in phase "Cluster in healthy state" with
// status.readyInstances equal to spec.instances; hibernated (condition
// cnpg.io/hibernation True) it is healthy and a finding; otherwise see
// cnpgPhases. Findings: the conditions ContinuousArchiving or
// LastBackupSucceeded False, and a cluster's latest Backup (by
// status.startedAt, else creation) in phase failed or walArchivingFailing.
func judgeCNPG(j *statusJudge) {
	clusters, known := j.objects("Cluster")
	healthy := 0
	for _, o := range clusters {
		h, moving, says := cnpgClusterHealth(o)
		j.decide(o, h, moving, says, "Cluster "+o.Ref()+": "+says)
		if h == topology.Healthy {
			healthy++
		}
		if c, ok := o.Condition("cnpg.io/hibernation"); ok && c.Status == topology.ConditionTrue {
			j.finding(topology.SeverityInfo, topology.FindingSuspended, "Cluster "+o.Ref(), "hibernated: its instances are shut down")
		}
		for _, t := range []string{"ContinuousArchiving", "LastBackupSucceeded"} {
			if c, ok := o.Condition(t); ok && c.Status == topology.ConditionFalse {
				j.finding(topology.SeverityWarning, topology.FindingBackup, "Cluster "+o.Ref(), "%s", condWords(c))
			}
		}
	}
	if known && len(clusters) == healthy {
		if healthy == 0 {
			j.good = append(j.good, "no Postgres Cluster")
		} else {
			j.good = append(j.good, count(healthy, "Cluster")+" healthy")
		}
	}
	backups, _ := j.objects("Backup")
	latest := map[string]topology.StatusObject{}
	for _, b := range backups {
		h, moving, says := backupHealth(b)
		j.report(b, h, moving, says)
		key := b.Namespace + "/" + b.Fields[topology.FieldBackupCluster]
		if cur, ok := latest[key]; !ok || backupTime(b).After(backupTime(cur)) {
			latest[key] = b
		}
	}
	keys := make([]string, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b := latest[k]
		if p := b.Fields[topology.FieldPhase]; p == "failed" || p == "walArchivingFailing" {
			msg := "latest Backup " + b.Ref() + " " + p
			if e := b.Fields[topology.FieldBackupError]; e != "" {
				msg += ": " + firstLine(e)
			}
			j.finding(topology.SeverityWarning, topology.FindingBackup, "Cluster "+k, "%s", msg)
		}
	}
}

func cnpgClusterHealth(o topology.StatusObject) (topology.Health, bool, string) {
	if o.Deleting {
		return topology.Degraded, false, "being deleted"
	}
	if v, ok := o.Annotations[topology.AnnCNPGReconciliationLoop]; ok && v == topology.AnnCNPGDisabled {
		says := "reconciliation disabled (" + topology.AnnCNPGReconciliationLoop + ": " + topology.AnnCNPGDisabled + "): no self-healing, no failover"
		if p := o.Fields[topology.FieldPhase]; p != "" {
			says += "; its status is frozen (last phase " + strconv.Quote(p) + ")"
		} else {
			says += "; its status is frozen"
		}
		return topology.Suspended, false, says
	}
	if !o.HasStatus {
		return topology.Unknown, false, notReported
	}
	if c, ok := o.Condition("cnpg.io/hibernation"); ok && c.Status == topology.ConditionTrue {
		return topology.Healthy, false, "hibernated"
	}
	phase := o.Fields[topology.FieldPhase]
	says := phase
	if r := o.Fields[topology.FieldPhaseReason]; r != "" {
		says += " (" + firstLine(r) + ")"
	}
	switch cnpgPhases[phase] {
	case "healthy":
		want, wok := strconv.Atoi(o.Fields[topology.FieldInstances])
		ready, rok := strconv.Atoi(o.Fields[topology.FieldReadyInstances])
		if rok != nil {
			ready = 0 // omitempty: no ready instance
		}
		if wok == nil && ready < want {
			return topology.Degraded, false, fmt.Sprintf("%d/%d instances ready", ready, want)
		}
		if wok == nil {
			return topology.Healthy, false, fmt.Sprintf("healthy, %d/%d instances ready", ready, want)
		}
		return topology.Healthy, false, "healthy"
	case "moving":
		return topology.Degraded, true, says
	case "broken":
		return topology.Degraded, false, says
	}
	if phase == "" {
		return topology.Unknown, false, "no phase reported yet"
	}
	return topology.Unknown, false, fmt.Sprintf("phase %q is not one CloudNativePG reports", phase)
}

func backupHealth(b topology.StatusObject) (topology.Health, bool, string) {
	if !b.HasStatus {
		return topology.Unknown, false, notReported
	}
	switch p := b.Fields[topology.FieldPhase]; p {
	case "completed":
		return topology.Healthy, false, "completed"
	case "failed", "walArchivingFailing":
		return topology.Degraded, false, p
	case "pending", "started", "running", "finalizing":
		return topology.Degraded, true, p
	default:
		return topology.Unknown, false, "phase " + strconv.Quote(p)
	}
}

func backupTime(b topology.StatusObject) time.Time {
	if t, err := time.Parse(time.RFC3339, b.Fields[topology.FieldBackupStarted]); err == nil {
		return t
	}
	return b.Created
}
