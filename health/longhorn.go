package health

import (
	"fmt"

	"nestor.dev/nestor/topology"
)

// judgeLonghorn: a Longhorn Node is healthy with condition Ready True; Ready
// False or Unknown is degraded (its reason: ManagerPodDown,
// KubernetesNodeNotReady…); Schedulable False is a finding (the node takes
// no new replicas: disk pressure, cordoned). A Volume is healthy with
// robustness healthy; degraded (fewer healthy replicas than asked: data at
// risk, as Ceph's HEALTH_WARN for degraded placement groups) and faulted (no
// healthy replica) are degraded; unknown is the normal robustness of a
// detached volume, healthy then, and unknown otherwise (longhorn-manager
// k8s/pkg/apis/longhorn/v1beta2/volume.go: healthy and degraded "during
// attached", faulted "during detached"); a volume creating, attaching,
// detaching or deleting (status.state, robustness unknown until it is
// attached) is progressing. No Longhorn Node at all is degraded:
// longhorn-manager registers one per node it runs on.
func judgeLonghorn(j *statusJudge) {
	nodes, known := j.objects("Node")
	if known && len(nodes) == 0 {
		j.noObject("longhorn runs, no Longhorn Node registered")
	}
	ready := 0
	for _, o := range nodes {
		h, says := topology.Unknown, notReported
		if c, ok := o.Condition("Ready"); ok {
			if c.Status == topology.ConditionTrue {
				h, says = topology.Healthy, "Ready"
				ready++
			} else {
				h, says = topology.Degraded, condWords(c)
			}
		} else if o.HasStatus {
			says = "no Ready condition reported yet"
		}
		j.decide(o, h, false, says, "Longhorn Node "+o.Ref()+": "+says)
		if c, ok := o.Condition("Schedulable"); ok && c.Status == topology.ConditionFalse {
			j.finding(topology.SeverityWarning, topology.FindingStorageNode, "Longhorn Node "+o.Ref(), "takes no new replicas: %s", condWords(c))
		}
	}
	volumes, vknown := j.objects("Volume")
	healthy := 0
	for _, o := range volumes {
		h, says := longhornVolumeHealth(o)
		j.decide(o, h, h == topology.Progressing, says, "Volume "+o.Ref()+": "+says)
		if h == topology.Healthy {
			healthy++
		}
	}
	if known && ready == len(nodes) && len(nodes) > 0 {
		w := count(ready, "Longhorn node") + " Ready"
		if vknown && healthy == len(volumes) {
			w += ", " + count(healthy, "volume") + " healthy"
		}
		j.good = append(j.good, w)
	}
}

func longhornVolumeHealth(o topology.StatusObject) (topology.Health, string) {
	if !o.HasStatus {
		return topology.Unknown, notReported
	}
	rob, state := o.Fields[topology.FieldRobustness], o.Fields[topology.FieldState]
	says := "robustness " + nonEmpty(rob, "none") + ", " + nonEmpty(state, "no state")
	switch rob {
	case "healthy":
		return topology.Healthy, says
	case "degraded", "faulted":
		return topology.Degraded, says
	case "unknown", "":
		switch state {
		case "detached":
			return topology.Healthy, "detached"
		case "creating", "attaching", "detaching", "deleting":
			return topology.Progressing, state
		}
		return topology.Unknown, says
	}
	return topology.Unknown, fmt.Sprintf("robustness %q is not one Longhorn reports", rob)
}
