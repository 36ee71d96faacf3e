package health

import (
	"fmt"
	"strconv"
	"strings"

	"nestor.dev/nestor/topology"
)

// LayerJudgement is a layer's health from its workloads and its own status
// resources together (JudgeLayer).
type LayerJudgement struct {
	// State is the layer's health and its short reason: what preview
	// prints on the layer's line.
	State topology.LayerState `json:"state"`
	// Workloads is JudgeWorkloads' judgement of the workloads, CRDs and
	// StorageClasses alone; its Reason lists every workload (for
	// --detailed and JSON).
	Workloads topology.LayerState `json:"workloads"`
	// Status is what the status resources say (JudgeStatus).
	Status topology.StatusVerdict `json:"status"`
}

// JudgeLayer judges one layer from what the kube reader read: its
// workloads (JudgeWorkloads with facts and declared) and its status resources
// (JudgeStatus with status). It is pure. A layer is:
//
//   - healthy only when its workloads are available and its status
//     resources say healthy; the reason is short: the status' words and the
//     count of workloads ("Ceph HEALTH_OK, 8 workloads available");
//   - degraded when either is degraded; the reason gives the workloads'
//     problems, then the status' words ("rook-ceph runs, no CephCluster";
//     "Ceph HEALTH_ERR: 2 osds down, checked 40 s ago");
//   - suspended when its workloads are not degraded and a status resource
//     that decides is suspended (JudgeStatus: its operator was told to
//     leave it alone), with the status' words;
//   - unknown when neither is degraded and either is unknown, with the
//     reasons (a list that could not be read, a status not reported yet, a
//     stale Ceph status);
//   - absent as JudgeWorkloads says. A custom layer whose only sign is its
//     detect.resource is present when that object exists, absent when it
//     is known not to, unknown when it could not be read.
//
// A layer without status resources is JudgeWorkloads' judgement unchanged.
// When the status has no resource that decides health (argocd), the
// workloads decide and the status' words only inform.
func JudgeLayer(def topology.LayerDef, facts topology.ClusterFacts, status topology.StatusFacts, declared bool) LayerJudgement {
	w := JudgeWorkloads(def, facts, declared)
	j := LayerJudgement{State: w, Workloads: w}
	if len(def.Status) == 0 {
		return j
	}
	v := JudgeStatus(def, status)
	j.Status = v
	st := topology.LayerState{Name: def.Name, Declared: declared}

	if w.Health == topology.Absent {
		res, only := customResourceOnly(def)
		if !only {
			// JudgeWorkloads found nothing of a catalog layer: absent. What its
			// status resources would say of it ("no Prometheus resource")
			// is no verdict on a layer that is not there: the JSON
			// document never says absent beside degraded.
			j.Status.Health, j.Status.Words, j.Status.Progressing, j.Status.Code = "", "", false, ""
			return j
		}
		f, read := status.Lists[res.Key()]
		switch {
		case !read || !f.Known:
			st.Health, st.Reason, st.Code = topology.Unknown, res.Kind+" "+refName(res)+": "+topology.OrNotRead(f.Reason), f.Why().Code
		case len(f.Value) == 0:
			st.Health, st.Reason = topology.Absent, fmt.Sprintf("not found: %s %s (%s)", res.Kind, refName(res), apiVersionOf(res))
		default:
			st.Health, st.Reason, st.Code = v.Health, v.Words, v.Code
		}
		j.State = st
		return j
	}

	if w.Health == topology.Unknown && v.Health == topology.Degraded && v.OnlyAbsentObjects {
		// "runs, but has no CephCluster" rests on the layer running: with
		// its workloads not read, that is not known, and neither is the
		// layer's health. No step may rest on it.
		st.Health, st.Code = topology.Unknown, w.Code
		st.Reason = "whether it runs is not known (" + w.Reason + "), so " + strconv.Quote(v.Words) + " says nothing of its health"
		j.State = st
		return j
	}
	switch {
	case w.Health == topology.Degraded || v.Health == topology.Degraded:
		st.Health = topology.Degraded
		var parts []string
		if w.Health == topology.Degraded {
			parts = append(parts, w.Reason)
		}
		if v.Health == topology.Degraded || v.Health == topology.Unknown {
			parts = append(parts, v.Words)
		}
		if w.Health == topology.Unknown {
			parts = append(parts, w.Reason)
		}
		st.Reason = strings.Join(parts, "; ")
	case v.Health == topology.Suspended:
		// Its own objects are left alone by their operator: what they say
		// may be frozen, so the layer is neither healthy nor repaired.
		st.Health = topology.Suspended
		parts := []string{v.Words}
		if w.Health == topology.Unknown {
			parts = append(parts, w.Reason)
		}
		st.Reason = strings.Join(parts, "; ")
	case w.Health == topology.Unknown || v.Health == topology.Unknown:
		st.Health = topology.Unknown
		var parts []string
		if v.Health == topology.Unknown {
			parts = append(parts, v.Words)
			st.Code = v.Code
		}
		if st.Code == "" {
			st.Code = w.Code
		}
		if w.Health == topology.Unknown {
			parts = append(parts, w.Reason)
		}
		st.Reason = strings.Join(parts, "; ")
	default:
		st.Health = topology.Healthy
		var parts []string
		if v.Words != "" {
			parts = append(parts, v.Words)
		}
		if n := w.Available; n > 0 {
			parts = append(parts, count(n, "workload")+" available")
		}
		if len(parts) == 0 {
			parts = append(parts, w.Reason)
		}
		st.Reason = strings.Join(parts, ", ")
	}
	j.State = st
	return j
}

// customResourceOnly returns the detect.resource of a custom layer that
// has nothing else to be found by (no workloads, CRD group or namespace).
func customResourceOnly(def topology.LayerDef) (topology.StatusResource, bool) {
	if def.Category != topology.CategoryCustom || len(def.Status) != 1 || def.Status[0].Name == "" {
		return topology.StatusResource{}, false
	}
	if len(def.Workloads) > 0 || len(def.CRDGroups) > 0 || len(def.Namespaces) > 0 {
		return topology.StatusResource{}, false
	}
	return def.Status[0], true
}

// apiVersionOf is "group/version" ("v1" for the core group).
func apiVersionOf(res topology.StatusResource) string {
	v := ""
	if len(res.Versions) > 0 {
		v = res.Versions[0]
	}
	if res.Group == "" {
		return v
	}
	return res.Group + "/" + v
}
