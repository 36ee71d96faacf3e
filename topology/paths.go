package topology

import (
	"path/filepath"
	"strings"
)

// ResolvePath turns a path written in the topology into the path to open:
// "" stays ""; a leading "~" or "~/" is expanded with home (nestor expands ~
// itself: client-go does not); an absolute path is returned cleaned; any
// other path is taken relative to the topology file's folder
// (filepath.Dir(t.Path)). "~user/…" is not expanded (it is taken as a
// relative path, like any name starting with "~"). With home == "" a path
// starting with "~/" is returned unchanged, so the caller's error names it as
// written. It never fails: a caller that must refuse an unexpandable ~
// checks for a leading "~" itself — probes.ResolveKubeconfig does, with its
// own expander, for the kubeconfig: it reads.
func (t *Topology) ResolvePath(p, home string) string {
	switch {
	case p == "":
		return ""
	case p == "~":
		if home == "" {
			return p
		}
		return filepath.Clean(home)
	case strings.HasPrefix(p, "~/"):
		if home == "" {
			return p
		}
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(t.Path), p)
}

// BenchKubeconfig returns the path of a lima bench's generated kubeconfig:
// lima.kubeconfig resolved with ResolvePath when it is set, else the default
// <parent of the topology's folder>/.work/<name>/kubeconfig — ".work beside
// the stacks folder" (DESIGN.md "Topology file"). It is meaningful for lima
// stacks only: a prod stack never uses the bench kubeconfig.
func (t *Topology) BenchKubeconfig(home string) string {
	if t.Lima != nil && t.Lima.Kubeconfig != "" {
		return t.ResolvePath(t.Lima.Kubeconfig, home)
	}
	stacksDir := filepath.Dir(t.Path)
	return filepath.Join(filepath.Dir(stacksDir), ".work", t.Name, "kubeconfig")
}

// ControlPlanes returns the declared nodes whose role is control-plane, in
// declaration order.
func (t *Topology) ControlPlanes() []Node {
	var out []Node
	for _, n := range t.Nodes {
		if n.Role == RoleControlPlane {
			out = append(out, n)
		}
	}
	return out
}

// Node returns the declared node called name.
func (t *Topology) Node(name string) (Node, bool) {
	for _, n := range t.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}
