package health

import (
	"fmt"
	"strconv"
	"strings"

	"nestor.dev/nestor/topology"
)

// judgePrometheus: a Prometheus or Alertmanager is healthy when its
// condition Available is True and Reconciled is not False; Available
// Degraded (SomePodsNotReady) or False (NoPodReady, StatefulSetNotFound) is
// degraded, and so is Reconciled False (prometheus-operator
// pkg/operator/statefulset_reporter.go; argo-cd
// resource_customizations/monitoring.coreos.com/Prometheus/health.lua);
// a condition whose observedGeneration is behind metadata.generation is
// about an older spec: degraded and progressing. No condition yet is
// unknown. A paused one (status.paused true, from spec.paused: "no actions
// except for deletion will be performed on the underlying objects",
// monitoring.coreos.com_prometheuses.yaml) is suspended. No Prometheus at
// all is degraded: the chart's job is one.
func judgePrometheus(j *statusJudge) {
	proms, known := j.objects("Prometheus")
	if known && len(proms) == 0 {
		j.noObject("no Prometheus resource")
	}
	var good []string
	allGood := known
	for _, kind := range []string{"Prometheus", "Alertmanager"} {
		objs, k := j.objects(kind)
		allGood = allGood && k
		n := 0
		for _, o := range objs {
			h, moving, says := availableHealth(o)
			j.decide(o, h, moving, says, kind+" "+o.Ref()+": "+says)
			if h == topology.Healthy {
				n++
			} else {
				allGood = false
			}
		}
		if n > 0 {
			if n == 1 {
				good = append(good, kind+" Available")
			} else {
				good = append(good, strconv.Itoa(n)+" "+kind+" Available")
			}
		}
	}
	if allGood {
		j.good = append(j.good, strings.Join(good, ", "))
	}
}

func availableHealth(o topology.StatusObject) (topology.Health, bool, string) {
	if o.Deleting {
		return topology.Degraded, false, "being deleted"
	}
	if o.Fields[topology.FieldPaused] == "true" {
		return topology.Suspended, false, "paused (spec.paused): the operator changes nothing of it"
	}
	avail, ok := o.Condition("Available")
	if !ok {
		return topology.Unknown, false, notReported
	}
	if o.Generation > 0 && avail.ObservedGeneration > 0 && avail.ObservedGeneration < o.Generation {
		return topology.Degraded, true, fmt.Sprintf("reconciling generation %d (conditions are of %d)", o.Generation, avail.ObservedGeneration)
	}
	if rec, ok := o.Condition("Reconciled"); ok && rec.Status == topology.ConditionFalse {
		return topology.Degraded, false, condWords(rec)
	}
	if avail.Status != topology.ConditionTrue {
		return topology.Degraded, false, condWords(avail)
	}
	says := "Available"
	if a, w := o.Fields[topology.FieldAvailableReplicas], o.Fields[topology.FieldReplicas]; a != "" && w != "" {
		says += " (" + a + "/" + w + " replicas)"
	}
	return topology.Healthy, false, says
}

// readyHealth judges an object by its Ready condition (the issuers' and
// stores' rule: argo-cd resource_customizations/cert-manager.io/Issuer,
// external-secrets.io/SecretStore health.lua): True healthy, False or
// Unknown degraded, none unknown.
func readyHealth(o topology.StatusObject) (topology.Health, string) {
	if o.Deleting {
		return topology.Degraded, "being deleted"
	}
	c, ok := o.Condition("Ready")
	if !ok {
		return topology.Unknown, notReported
	}
	if c.Status == topology.ConditionTrue {
		return topology.Healthy, "Ready"
	}
	return topology.Degraded, condWords(c)
}
