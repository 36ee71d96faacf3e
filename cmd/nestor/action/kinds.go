package action

import (
	"fmt"
	"sync"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/kapsule"
	"nestor.dev/nestor/probes/lima"
	"nestor.dev/nestor/probes/prod"
	"nestor.dev/nestor/topology"
)

// This file is the one registry of target kinds: the only place that names
// every kind. Each kind is a package implementing probes.Kind; the commands
// find a stack's kind here and never compare target_kind themselves.
// Adding a kind is its package, one line below, and its enum value and
// block grammar in package topology.
func init() {
	Register(prod.Kind{})
	Register(lima.Kind{})
	Register(kapsule.Kind{})
}

var (
	kindsMu sync.RWMutex
	kinds   = map[topology.TargetKind]probes.Kind{}
)

// Register adds target kind k to the registry (replacing one of the same
// name), so every command reads its stacks through it. The built-in kinds
// are registered above; a test registers a kind of its own with it (and
// its target_kind with topology.RegisterKind).
func Register(k probes.Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	kinds[k.Name()] = k
}

// KindOf returns the registered kind of t's target_kind. Errors: no kind
// is registered under that name (a topology that loaded, but whose kind
// this build does not implement).
func KindOf(t *topology.Topology) (probes.Kind, error) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	if k, ok := kinds[t.TargetKind]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%s: target_kind %q has no implementation in this nestor", t.Path, t.TargetKind)
}

// readBenches lists the bench kubeconfigs of the stacks folder: the stacks
// whose kind owns one (probes.BenchOwner), each with its file. None when
// the folder cannot be listed (no bench to mistake then).
func (c Config) readBenches() []probes.Bench {
	kindsMu.RLock()
	var names []string
	for name, k := range kinds {
		if _, ok := k.(probes.BenchOwner); ok {
			names = append(names, string(name))
		}
	}
	kindsMu.RUnlock()
	if len(names) == 0 {
		return nil
	}
	entries, err := c.Stacks.Mentioning(names...)
	if err != nil {
		return nil
	}
	out := []probes.Bench{}
	for _, e := range entries {
		if k, err := KindOf(e.Topology); err == nil {
			if owner, ok := k.(probes.BenchOwner); ok {
				out = append(out, probes.Bench{Stack: e.Name, Kubeconfig: owner.BenchKubeconfig(e.Topology, c.Home)})
			}
		}
	}
	return out
}
