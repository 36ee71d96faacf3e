package topology

import "os"

// load reads the topology file at path and parses it, as the stacks folder
// does (stacks.Load), for the tests of the grammar.
func load(path string) (*Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}
