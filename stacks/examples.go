package stacks

import "path/filepath"

// ExamplesDir is the subfolder of example stacks a stacks folder may hold:
// in a clone of nestor, ./stacks is the Go package stacks and its
// examples/, so run from the clone's root nestor finds the examples there
// and no stack of its own.
const ExamplesDir = "examples"

// Examples returns the store of s's examples/ subfolder and the names of
// its stacks when s holds no stack file itself and that subfolder holds
// some; ok is false otherwise (s has stacks, or no examples to point at).
func (s Store) Examples() (examples Store, names []string, ok bool) {
	if own, err := s.List(); err != nil || len(own) > 0 {
		return Store{}, nil, false
	}
	ex := Store{Dir: filepath.Join(s.Dir, ExamplesDir)}
	entries, err := ex.List()
	if err != nil || len(entries) == 0 {
		return Store{}, nil, false
	}
	for _, e := range entries {
		names = append(names, e.Name)
	}
	return ex, names, true
}
