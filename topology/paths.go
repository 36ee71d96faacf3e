package topology

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CheckName returns an error when name is not a stack name: the topology
// name rule of ARCHITECTURE.md "Topology file", [a-z0-9-] starting with a letter or a digit, which
// is also the base name of NAME.yaml in the stacks folder (so a stack name is
// never a path).
func CheckName(name string) error {
	if !stackNameRE.MatchString(name) {
		return fmt.Errorf("%q is not a stack name: use [a-z0-9-], starting with a letter or digit", name)
	}
	return nil
}

// ExpandHome is nestor's one path expander (client-go never expands ~):
// a leading "~" or "~/" is replaced by home, then a relative path is taken
// from base, or from the working directory (as a shell would) when base is
// "", and the result is cleaned. what names where p was written, for the
// errors ("--kubeconfig", "KUBECONFIG", "kubeconfig: of FILE").
//
// Errors: a leading ~ with home "" ("HOME is not set: cannot expand ~ in
// WHAT (P); write the full path"); the ~user form, which nestor does not
// expand ("WHAT (P): ~user paths are not supported; write the full path");
// a working directory that cannot be read.
func ExpandHome(p, home, base, what string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", fmt.Errorf("HOME is not set: cannot expand ~ in %s (%s); write the full path", what, p)
		}
		p = filepath.Join(home, p[1:])
	case strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%s (%s): ~user paths are not supported; write the full path", what, p)
	}
	if !filepath.IsAbs(p) {
		if base != "" {
			return filepath.Join(base, p), nil
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("cannot make %s absolute: %v", p, err)
		}
		p = abs
	}
	return filepath.Clean(p), nil
}

// ResolvePath turns a path written in the topology into the path to open,
// with ExpandHome from the topology file's folder: "" stays ""; a leading
// "~" or "~/" is expanded with home; an absolute path is returned cleaned;
// any other path is taken relative to filepath.Dir(t.Path). It never fails:
// with home == "" a path starting with "~" is returned unchanged, so the
// caller's error names it as written, and "~user/…" (which nestor does not
// expand) is taken as a relative path, like any name starting with "~". A
// caller that must refuse an unexpandable ~ calls ExpandHome itself.
func (t *Topology) ResolvePath(p, home string) string {
	if p == "" {
		return ""
	}
	dir := filepath.Dir(t.Path)
	out, err := ExpandHome(p, home, dir, "")
	switch {
	case err == nil:
		return out
	case p == "~" || strings.HasPrefix(p, "~/"):
		return p
	}
	return filepath.Join(dir, p)
}

// BenchKubeconfig returns the path of a lima bench's generated kubeconfig:
// lima.kubeconfig resolved with ResolvePath when it is set, else the default
// <parent of the topology's folder>/.work/<name>/kubeconfig — ".work beside
// the stacks folder" (ARCHITECTURE.md "Topology file"). It is meaningful for lima
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
