package stacks

import (
	"errors"
	"os"
	"path/filepath"

	"nestor.dev/nestor/topology"
)

// Load reads the topology file of a stack at path and validates it
// (topology.Parse). A file that cannot be read is a topology.Errors naming
// it, what the system said and the fix.
func Load(path string) (*topology.Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, readError(path, err)
	}
	return absolute(topology.Parse(path, data))
}

// LoadFile reads the topology file at path anywhere on disk (-f FILE) and
// validates it (topology.ParseFile: its name: may differ from the file's
// base name). Errors: as Load's.
func LoadFile(path string) (*topology.Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, readError(path, err)
	}
	return absolute(topology.ParseFile(path, data))
}

// absolute makes t's Path absolute (against the working directory), as the
// topology's relative paths are resolved from its folder; errors name the
// file as it was given.
func absolute(t *topology.Topology, err error) (*topology.Topology, error) {
	if err != nil {
		return nil, err
	}
	if abs, aerr := filepath.Abs(t.Path); aerr == nil {
		t.Path = abs
	}
	return t, nil
}

// readError is the error of a topology file that could not be read: what
// the system said, and the fix that suits it (topology.ReadFix; else the path's).
func readError(path string, err error) error {
	fix := topology.ReadFix(err)
	if fix == "" {
		fix = "check the path"
	}
	return topology.Errors{{File: path, Msg: "cannot read the topology: " + unwrapPathError(err), Fix: fix, Err: err}}
}

func unwrapPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
