package topology

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// kstatusOf judges o by kstatus (sigs.k8s.io/cli-utils pkg/kstatus/status
// Compute: metadata.deletionTimestamp, then metadata.generation against
// status.observedGeneration, then the conditions Reconciling and Stalled,
// the rules of the built-in kinds, then a Ready condition; see
// pkg/kstatus/README.md) and maps its answer onto a layer's health:
//
//   - an empty status (not deleting) is Unknown, "not reported yet": kstatus
//     calls an object with no conditions Current, but nothing has reported
//     on it;
//   - Current is Healthy ("Ready" when a Ready condition is True, else
//     "current");
//   - InProgress is Degraded, and progressing unless its Ready condition is
//     False: kstatus calls Ready False in progress ("no way to determine if
//     a resource with the Ready condition set to False is making progress
//     or is doomed"), and Flux keeps Reconciling True while it retries a
//     failure, so a Ready False is reported as not Ready, never as moving;
//   - Failed (Stalled True) and Terminating are Degraded;
//   - Unknown, or an error of kstatus (a malformed field), is Unknown.
//
// It returns the health, whether it is progressing, and the words.
func kstatusOf(o StatusObject) (Health, bool, string) {
	if !o.HasStatus && !o.Deleting {
		return Unknown, false, notReported
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: kstatusObject(o)})
	if err != nil {
		return Unknown, false, "kstatus cannot judge it: " + err.Error()
	}
	ready, hasReady := o.condition("Ready")
	switch res.Status {
	case status.CurrentStatus:
		if hasReady && ready.Status == ConditionTrue {
			return Healthy, false, "Ready"
		}
		return Healthy, false, "current"
	case status.InProgressStatus:
		if hasReady && ready.Status == ConditionFalse {
			return Degraded, false, condWords(ready)
		}
		return Degraded, true, "in progress: " + kstatusWords(res)
	case status.FailedStatus:
		return Degraded, false, "failed: " + kstatusWords(res)
	case status.TerminatingStatus:
		return Degraded, false, "being deleted"
	}
	return Unknown, false, "kstatus says " + string(res.Status) + ": " + kstatusWords(res)
}

// kstatusWords is kstatus' condition ("Stalled (Reason): message"), else its
// message.
func kstatusWords(res *status.Result) string {
	for _, c := range res.Conditions {
		return condWords(Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return strings.TrimSpace(firstLine(res.Message))
}

// kstatusObject is the object kstatus reads: o's whole object when
// DecodeStatusObject kept it (a custom layer's one object), else one built
// from what was decoded — metadata.generation and deletionTimestamp,
// status.observedGeneration and the conditions, all kstatus reads of a
// custom resource.
func kstatusObject(o StatusObject) map[string]any {
	if o.Raw != nil {
		return o.Raw
	}
	meta := map[string]any{"name": o.Name}
	if o.Namespace != "" {
		meta["namespace"] = o.Namespace
	}
	if o.Generation != 0 {
		meta["generation"] = o.Generation
	}
	if o.Deleting {
		meta["deletionTimestamp"] = "deleting"
	}
	st := map[string]any{}
	if o.HasObserved {
		st["observedGeneration"] = o.ObservedGeneration
	}
	conds := make([]any, 0, len(o.Conditions))
	for _, c := range o.Conditions {
		conds = append(conds, map[string]any{"type": c.Type, "status": c.Status, "reason": c.Reason, "message": c.Message})
	}
	st["conditions"] = conds
	return map[string]any{"apiVersion": "x.nestor.dev/v1", "kind": o.Kind, "metadata": meta, "status": st}
}
