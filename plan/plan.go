package plan

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"nestor.dev/nestor/topology"
)

// Options are the inputs of Build that are not the stack.
type Options struct {
	// AsOf is the day the support calendar is judged at (the caller passes
	// time.Now(), or --as-of). Zero means "calendar not judged": the
	// findings then say nothing about dates.
	AsOf time.Time
}

// Build compares what t declares with what obs read and returns the
// ordered steps that would close the gap, and the findings (Plan.Findings)
// that are not steps. It is pure and never fails; it does not modify obs.
// rules is the stack's target kind's (its own phases and their plan); the
// layers are judged here, the same for every kind.
//
// Order follows Phases(t, rules): the kind's own phases (rules.PlanOwn),
// then one group per declared layer, then the undeclared layers.
//
//   - layers, in declaration order: install for an Absent layer, repair for a
//     Degraded one (its reason carried), nothing for a Healthy one, nothing
//     for an Unknown one or one missing from obs.Layers (listed in Unknowns).
//     In the backend layer's group: migrate-backend when obs.Storage is known
//     and the default StorageClass Kubernetes uses (DefaultStorage: the
//     newest of several, never the first by name) has a provisioner that is
//     not the desired backend's, or there is none; Storage unknown →
//     Unknowns.
//   - undeclared (information, not a change): each obs.Layers entry with
//     Declared=false; when the search for them could not read every sign
//     (obs.UndeclaredUnread), that claim is an unknown of its own.
//   - findings: what each layer's own status resources say of what runs
//     on it (LayerState.Status.Findings).
//
// A kind's rules may hold the plan (Plan.Held: a managed cluster being
// deleted): then nothing beyond their own judgement is planned.
//
// obs.NoTarget (nothing could be read): Unverified=true, the whole cluster
// is an unknown, and the plan assumes an empty cluster — what the kind's
// rules plan for it, then install for every layer. Whatever the case, a
// plan never installs a layer an observation shows present (healthy,
// degraded or unknown), and a step of the kind's rules always belongs to
// one of its own phases: one it puts in a phase the kind does not have is
// dropped (a prod plan never holds a VM step, whatever the observation
// holds).
func Build(t *topology.Topology, obs *topology.Observed, rules Rules, o Options) topology.Plan {
	if obs == nil {
		obs = &topology.Observed{NoTarget: true}
	}
	p := topology.Plan{Steps: []topology.Step{}, Unknowns: []topology.UnknownPart{}, Findings: []topology.Finding{}, Unverified: obs.NoTarget}
	rules.PlanOwn(t, obs, o, &p)
	p.Steps = inPhases(p.Steps, rules.OwnPhases(t))
	if p.Held != "" {
		return p
	}
	if obs.NoTarget {
		p.Unknowns = append(p.Unknowns, NoTargetUnknown(obs.NoTargetReason))
	}

	states := map[string]topology.LayerState{}
	for _, l := range obs.Layers {
		if !l.Declared {
			continue
		}
		if _, dup := states[l.Name]; !dup {
			states[l.Name] = l
		}
	}
	backendLayer, _ := topology.BackendLayer(t.Backend)
	for _, ref := range t.Layers {
		st, observed := states[ref.Name]
		switch {
		case observed && st.Health == topology.Absent:
			// The layer's reason already says what was looked for and not
			// found: said once.
			p.Add(topology.StepInstall, ref.Name, ref.Name, cmp.Or(st.Reason, "not found on the cluster"))
		case observed && st.Health == topology.Degraded:
			p.Add(topology.StepRepair, ref.Name, ref.Name, st.Reason)
		case observed && st.Health == topology.Healthy:
		case observed:
			// Unknown (or a health this version does not know): never
			// proposed for installation.
			code := st.Code
			switch st.Health {
			case topology.Unknown:
			case topology.Suspended:
				code = topology.ReasonSuspended // its owner stopped acting on it
			default:
				code = topology.ReasonUnrecognised // a health this version does not know
			}
			p.AddUnknown(topology.LayerSubject(ref.Name), code, st.Reason)
		case obs.NoTarget:
			p.Add(topology.StepInstall, ref.Name, ref.Name, "unverified: assumes an empty cluster")
		default:
			p.AddUnknown(topology.LayerSubject(ref.Name), topology.ReasonNotRead, "not probed")
		}
		if ref.Name == backendLayer && backendLayer != "" && !obs.NoTarget {
			planBackend(&p, t, obs, backendLayer)
		}
	}

	for _, l := range obs.Layers {
		if l.Declared {
			continue
		}
		reason := "not declared in the topology"
		if l.Health != "" {
			reason += ", found " + string(l.Health)
			if l.Reason != "" {
				reason += ": " + l.Reason
			}
		} else {
			reason = "present on the cluster but " + reason
		}
		p.Add(topology.StepUndeclared, l.Name, l.Name, reason)
	}

	if !obs.NoTarget && obs.InClusterUnread == "" && obs.UndeclaredUnread != "" {
		// "Nothing else runs" is a claim too: it needs every sign read.
		p.AddUnknown(topology.UndeclaredLayersSubject(), obs.UndeclaredUnreadCode, obs.UndeclaredUnread)
	}
	for _, l := range obs.Layers {
		if l.Status != nil {
			// What the layers' own resources say of what runs on them.
			p.Findings = append(p.Findings, l.Status.Findings...)
		}
	}
	if !obs.NoTarget && !obs.Storage.Known && backendLayer == "" && obs.InClusterUnread == "" {
		// Not needed by any step, but still a part of ACTUAL that was not
		// read: a plan beside it is never "in sync" — unless the whole
		// in-cluster part was left unread on purpose (a managed cluster
		// read through its provider alone) and nothing declared lives
		// there: ACTUAL says so once, and the provider's judgement stands.
		p.AddUnknown(topology.StorageSubject(), obs.Storage.Code, obs.Storage.Reason)
	}
	return p
}

// inPhases keeps the steps whose phase is one of phases: the guard that
// keeps a kind's own steps inside its own phases (a prod plan never proposes to
// create or start a VM, whatever the observation holds).
func inPhases(steps []topology.Step, phases []topology.Phase) []topology.Step {
	has := make(map[string]bool, len(phases))
	for _, ph := range phases {
		has[ph.Name] = true
	}
	out := steps[:0]
	for _, s := range steps {
		if has[s.Phase] {
			out = append(out, s)
		}
	}
	return out
}

// planBackend adds to p the backend layer's migrate-backend step, or its
// unknown (see Build).
func planBackend(p *topology.Plan, t *topology.Topology, obs *topology.Observed, layer string) {
	if !obs.Storage.Known {
		p.AddUnknown(topology.StorageSubject(), obs.Storage.Code, obs.Storage.Reason)
		return
	}
	desired := "desired backend " + t.Backend
	if t.Backend != layer {
		desired += " (" + layer + ")"
	}
	s := obs.Storage.Value
	if s.Class == "" {
		reason := desired + ", the cluster has no default StorageClass"
		if s.Warning != "" {
			reason = desired + ", the cluster has no default StorageClass that works: " + s.Warning
		}
		p.Add(topology.StepMigrateBackend, layer, layer, reason)
		return
	}
	def, _ := topology.CatalogLayer(layer)
	for _, prov := range def.Provisioners {
		if s.Provisioner == prov {
			return
		}
	}
	reason := fmt.Sprintf("%s, cluster default StorageClass %s (%s)", desired, s.Class, s.Provisioner)
	if len(s.OtherDefaults) > 0 {
		reason += fmt.Sprintf(", the one Kubernetes uses of the %d marked default (also: %s)", len(s.OtherDefaults)+1, strings.Join(s.OtherDefaults, ", "))
	}
	p.Add(topology.StepMigrateBackend, layer, layer, reason)
}

// NoTargetUnknown is the plan's unknown when no target was read (an
// Observed with NoTarget): the whole cluster, ReasonNoTarget, "no target
// was read: REASON", the reason as the probes gave it ("not read" when
// they gave none).
func NoTargetUnknown(reason string) topology.UnknownPart {
	return topology.UnknownPart{Subject: topology.WholeClusterSubject(), Code: topology.ReasonNoTarget, Message: "no target was read: " + topology.OrNotRead(reason)}
}
