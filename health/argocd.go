package health

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/topology"
)

// judgeArgoCD: Applications are findings, never the layer's health: a
// status.health.status of Degraded or Missing is a warning, Unknown,
// Progressing and Suspended information; status.sync.status OutOfSync is
// information; each condition whose type ends in Error (argo-cd
// pkg/apis/application/v1alpha1 ApplicationCondition.IsError:
// ComparisonError, InvalidSpecError, SyncError…) a warning; an Application
// with no status is not reported yet. The object is Suspended when its
// health says Suspended, and Progressing when its health says Progressing
// or an operation runs on it (status.operationState.phase Running or
// Terminating, argo-cd pkg/apis/application/v1alpha1 OperationPhase:
// "the operation is not completed" while Running); an operation Failed or
// Error is a warning with its message.
func judgeArgoCD(j *statusJudge) {
	apps, known := j.objects("Application")
	bad := 0
	for _, o := range apps {
		subject := "Application " + o.Ref()
		health, sync := o.Fields[topology.FieldAppHealth], o.Fields[topology.FieldAppSync]
		if !o.HasStatus || health == "" {
			j.report(o, topology.Unknown, false, notReported)
			continue
		}
		says := health + ", " + nonEmpty(sync, "sync unknown")
		h := topology.Healthy
		switch health {
		case "Healthy":
		case "Degraded", "Missing":
			h = topology.Degraded
			j.finding(topology.SeverityWarning, topology.FindingApplication, subject, "%s", says)
		case "Suspended":
			h = topology.Suspended
			j.finding(topology.SeverityInfo, topology.FindingSuspended, subject, "%s", says)
		case "Progressing":
			h = topology.Progressing
			j.finding(topology.SeverityInfo, topology.FindingApplication, subject, "%s", says)
		default:
			h = topology.Unknown
			j.finding(topology.SeverityInfo, topology.FindingApplication, subject, "%s", says)
		}
		switch op := o.Fields[topology.FieldAppOperationPhase]; op {
		case "Running", "Terminating":
			says += ", operation " + op
			if m := o.Fields[topology.FieldAppOperationReason]; m != "" {
				says += ": " + firstLine(m)
			}
			if h == topology.Healthy {
				h = topology.Progressing
			}
			j.finding(topology.SeverityInfo, topology.FindingApplication, subject, "%s", says)
		case "Failed", "Error":
			msg := "last operation " + op
			if m := o.Fields[topology.FieldAppOperationReason]; m != "" {
				msg += ": " + firstLine(m)
			}
			j.finding(topology.SeverityWarning, topology.FindingApplication, subject, "%s", msg)
		default:
			if sync == "OutOfSync" && h == topology.Healthy {
				j.finding(topology.SeverityInfo, topology.FindingApplication, subject, "%s", says)
			}
		}
		for _, c := range o.Conditions {
			if strings.HasSuffix(c.Type, "Error") {
				j.finding(topology.SeverityWarning, topology.FindingApplication, subject, "%s: %s", c.Type, firstLine(c.Message))
				if h == topology.Healthy {
					h = topology.Degraded
				}
			}
		}
		if h != topology.Healthy {
			bad++
		}
		j.report(o, h, h == topology.Progressing, says)
	}
	if known {
		w := count(len(apps), "Application")
		if bad > 0 {
			w += fmt.Sprintf(" (%d not healthy)", bad)
		}
		j.good = append(j.good, w)
	}
}
