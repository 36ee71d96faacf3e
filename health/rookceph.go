package health

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"nestor.dev/nestor/topology"
)

// cephStaleFactor: a Ceph status older than this many check intervals is
// stale. Rook checks every interval and writes lastChecked each time
// (pkg/operator/ceph/cluster/cephstatus.go checkCephStatus), a failed check
// included (it writes HEALTH_ERR with the error); two intervals leave room
// for one slow check.
const cephStaleFactor = 2

// cephDefaultInterval is Rook's default status check interval
// (cephstatus.go defaultStatusCheckInterval).
const cephDefaultInterval = 60 * time.Second

// judgeRookCeph: a CephCluster is healthy when Ceph says HEALTH_OK,
// checked within twice the check interval, and its phase is Ready or
// Connected (or not given); HEALTH_WARN and HEALTH_ERR are degraded, with
// Ceph's check messages (the anchor, argo-cd
// resource_customizations/ceph.rook.io/CephCluster/health.lua, degrades
// both); a phase Failure, or state Error, is degraded; Progressing,
// Updating, Connecting or Creating is degraded and progressing; a status
// older than twice the interval is unknown and says when it was checked
// (the interval is the CephCluster's
// spec.healthCheck.daemonHealth.status.interval, else 60 s; the operator's
// ROOK_CEPH_STATUS_CHECK_INTERVAL, which nestor cannot see, overrides it).
// No CephCluster at all is degraded: the operator runs but no Ceph cluster
// stores anything. Pools and filesystems: phase Ready healthy, Failure
// degraded, Progressing degraded and progressing.
//
// Rook's own states come first (cephDeletion): a CephCluster being deleted
// is progressing, or degraded when its condition DeletionIsBlocked is True
// (pkg/apis/ceph.rook.io/v1 ConditionDeletionIsBlocked: dependents such as
// pools still exist); a CephCluster whose spec.cleanupPolicy.confirmation
// is "yes-really-destroy-data" is suspended: "after the confirmation is
// set, Rook will immediately stop configuring the cluster and only wait
// for the delete command" (deploy/examples/cluster.yaml), so its Ceph
// health is no longer what Rook keeps it at.
func judgeRookCeph(j *statusJudge) {
	clusters, known := j.objects("CephCluster")
	if known && len(clusters) == 0 {
		j.noObject("rook-ceph runs, no CephCluster")
	}
	var oks []string
	for _, o := range clusters {
		h, moving, says := cephClusterHealth(o, j.now)
		words := "CephCluster " + o.Ref() + ": " + says
		if len(clusters) == 1 && strings.HasPrefix(says, "HEALTH_") {
			words = "Ceph " + says // one cluster: Ceph's own words
		}
		j.decide(o, h, moving, says, words)
		if h == topology.Healthy {
			oks = append(oks, says)
		}
	}
	switch {
	case len(oks) == 1:
		j.good = append(j.good, "Ceph "+strings.SplitN(oks[0], ",", 2)[0])
	case len(oks) > 1:
		j.good = append(j.good, count(len(oks), "CephCluster")+" HEALTH_OK")
	}
	for _, kind := range []string{"CephBlockPool", "CephFilesystem"} {
		objs, _ := j.objects(kind)
		for _, o := range objs {
			h, moving, says := phaseHealth(o)
			j.decide(o, h, moving, says, kind+" "+o.Ref()+": "+says)
		}
	}
}

// cephClusterHealth judges one CephCluster at now.
func cephClusterHealth(o topology.StatusObject, now time.Time) (topology.Health, bool, string) {
	if o.Deleting {
		return cephDeletion(o)
	}
	if o.Fields[topology.FieldCephCleanup] == topology.CephCleanupConfirmed {
		return topology.Suspended, false, "cleanup confirmed (spec.cleanupPolicy.confirmation: " + topology.CephCleanupConfirmed + "): Rook stops configuring it and waits for its deletion, which wipes its hosts' data"
	}
	if !o.HasStatus {
		return topology.Unknown, false, notReported
	}
	phase, state := o.Fields[topology.FieldPhase], o.Fields[topology.FieldState]
	msg := o.Fields[topology.FieldMessage]
	withMsg := func(s string) string {
		if msg != "" {
			return s + ": " + firstLine(msg)
		}
		return s
	}
	if phase == "Failure" || state == "Error" {
		return topology.Degraded, false, withMsg("phase " + nonEmpty(phase, state))
	}
	health := o.Fields[topology.FieldCephHealth]
	if health == "" {
		if phase == "Progressing" || state == "Creating" {
			return topology.Degraded, true, withMsg("creating, no Ceph health yet")
		}
		return topology.Unknown, false, "no Ceph health reported yet (phase " + nonEmpty(phase, "none") + ")"
	}
	checked, err := time.Parse(time.RFC3339, o.Fields[topology.FieldCephLastChecked])
	if err != nil {
		return topology.Unknown, false, "Ceph " + health + " with no time of check (status.ceph.lastChecked " + strconv.Quote(o.Fields[topology.FieldCephLastChecked]) + ")"
	}
	interval := cephDefaultInterval
	if s := o.Fields[topology.FieldCephCheckInterval]; s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			interval = d
		}
	}
	when := "checked " + ago(now, checked)
	if now.Sub(checked) > cephStaleFactor*interval {
		why := fmt.Sprintf("Rook checks every %s", interval)
		if o.Fields[topology.FieldCephCheckDisabled] == "true" {
			why = "its status check is disabled (spec.healthCheck.daemonHealth.status.disabled)"
		}
		return topology.Unknown, false, fmt.Sprintf("Ceph %s as last %s (%s); %s, so it is stale", health, when, checked.UTC().Format(time.RFC3339), why)
	}
	switch health {
	case "HEALTH_OK":
		switch phase {
		case "", "Ready", "Connected":
		default:
			return topology.Degraded, true, "HEALTH_OK, phase " + phase + ", " + when
		}
		return topology.Healthy, false, "HEALTH_OK, " + when
	case "HEALTH_WARN", "HEALTH_ERR":
		return topology.Degraded, false, health + cephCheckWords(o.Checks) + ", " + when
	}
	return topology.Unknown, false, fmt.Sprintf("Ceph health %q is not one Ceph reports (HEALTH_OK, HEALTH_WARN, HEALTH_ERR)", health)
}

// cephCheckWords lists Ceph's check messages, errors first (Ceph's
// severities HEALTH_ERR, then Rook's Urgent, then HEALTH_WARN), then by
// name, bounded: ": Reduced data availability: 64 pgs inactive; 2 osds
// down".
func cephCheckWords(checks []topology.HealthCheck) string {
	rank := func(s string) int {
		switch s {
		case "HEALTH_ERR":
			return 0
		case "Urgent":
			return 1
		case "HEALTH_WARN":
			return 2
		}
		return 3
	}
	cs := append([]topology.HealthCheck{}, checks...)
	sort.SliceStable(cs, func(a, b int) bool { return rank(cs[a].Severity) < rank(cs[b].Severity) })
	var msgs []string
	for _, c := range cs {
		m := c.Message
		if m == "" {
			m = c.Name
		}
		msgs = append(msgs, firstLine(m))
	}
	if len(msgs) == 0 {
		return ""
	}
	return ": " + listWords(msgs)
}

// cephDeletion judges a Rook object being deleted: progressing while Rook
// removes it, degraded when Rook reports its deletion blocked (condition
// DeletionIsBlocked True, reason ObjectHasDependents: the objects that
// still use it are named in the message).
func cephDeletion(o topology.StatusObject) (topology.Health, bool, string) {
	if c, ok := o.Condition("DeletionIsBlocked"); ok && c.Status == topology.ConditionTrue {
		return topology.Degraded, false, "deletion blocked: " + condWords(c)
	}
	says := "being deleted"
	if o.Fields[topology.FieldCephCleanup] == topology.CephCleanupConfirmed {
		says += ", its hosts' data wiped (spec.cleanupPolicy.confirmation: " + topology.CephCleanupConfirmed + ")"
	}
	return topology.Progressing, true, says
}

// nonEmpty returns a, or b when a is empty.
func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// phaseHealth judges a Rook pool or filesystem by status.phase (rook
// pkg/apis/ceph.rook.io/v1 ConditionType: Progressing, Ready, Failure,
// Deleting).
func phaseHealth(o topology.StatusObject) (topology.Health, bool, string) {
	if o.Deleting {
		return cephDeletion(o)
	}
	if !o.HasStatus {
		return topology.Unknown, false, notReported
	}
	switch p := o.Fields[topology.FieldPhase]; p {
	case "Ready", "Connected":
		return topology.Healthy, false, "phase " + p
	case "Failure":
		return topology.Degraded, false, "phase Failure"
	case "Progressing", "Connecting", "Updating":
		return topology.Degraded, true, "phase " + p
	case "Deleting":
		return cephDeletion(o)
	case "":
		return topology.Unknown, false, "no phase reported"
	default:
		return topology.Unknown, false, fmt.Sprintf("phase %q is not one Rook reports", p)
	}
}
