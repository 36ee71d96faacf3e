package health

import "nestor.dev/nestor/topology"

// judgeFlux: each Flux object is judged by kstatus (kstatusOf), with
// Flux's own states first:
//
//   - spec.suspend true is suspended, whatever its status says: the
//     controller skips it ("suspend tells the controller to suspend
//     subsequent reconciliations", the spec of every Flux kind, e.g.
//     source-controller docs/spec/v1/gitrepositories.md "Suspend"), so its
//     conditions are those of its last reconciliation;
//   - a HelmRepository of spec.type oci with no status is healthy, "static":
//     source-controller writes none for it — OCI HelmRepositories "do not
//     contain any information in the status" and "can be considered to be
//     ready for use" (docs/spec/v1/helmrepositories.md, Type); one that
//     has conditions (older releases reconciled it) is judged by them.
//
// The sources and the Kustomization named flux-system in namespace
// flux-system are Flux's own sync: degraded there is degraded, suspended
// there makes the layer suspended. Every other object not healthy is a
// finding (warning; progressing and suspended are information). Without a
// flux-system sync (Flux installed without bootstrap) the workloads decide.
func judgeFlux(j *statusJudge) {
	var own []string
	for _, res := range j.res {
		objs, _ := j.objects(res.Kind)
		for _, o := range objs {
			h, moving, says := fluxHealth(o)
			suspended := h == topology.Suspended
			isOwn := res.Decides && o.Namespace == fluxSyncName && o.Name == fluxSyncName
			if isOwn {
				own = append(own, res.Kind)
				j.decide(o, h, moving, says, res.Kind+" "+o.Ref()+": "+says)
				continue
			}
			j.report(o, h, moving, says)
			subject := res.Kind + " " + o.Ref()
			switch {
			case suspended:
				j.finding(topology.SeverityInfo, topology.FindingSuspended, subject, "suspended")
			case h == topology.Degraded && moving:
				j.finding(topology.SeverityInfo, topology.FindingFluxObject, subject, "%s", says)
			case h == topology.Degraded:
				j.finding(topology.SeverityWarning, topology.FindingFluxObject, subject, "%s", says)
			}
		}
	}
	if len(own) == 0 {
		j.good = append(j.good, "no flux-system sync (not bootstrapped)")
	} else if len(j.suspended) > 0 {
		// no good words: the sync is suspended
	} else {
		j.good = append(j.good, "flux-system sync Ready")
	}
}

// fluxHealth judges one Flux object (see judgeFlux).
func fluxHealth(o topology.StatusObject) (topology.Health, bool, string) {
	if o.Fields[topology.FieldSuspend] == "true" && !o.Deleting {
		says := "suspended (spec.suspend: true): Flux does not reconcile it"
		if _, _, last := kstatusOf(o); o.HasStatus {
			says += "; its last status: " + last
		}
		return topology.Suspended, false, says
	}
	if o.Kind == "HelmRepository" && o.Fields[topology.FieldSourceType] == "oci" && !o.HasStatus && !o.Deleting {
		return topology.Healthy, false, "static (spec.type oci): Flux writes no status for it, ready for use"
	}
	return kstatusOf(o)
}
