// Package probes reads the actual state of a stack, and nothing else.
//
// Every command opens a stack's target through one pipeline (pipeline.go):
// Open resolves what the stack is read through (ResolveKubeconfig, DESIGN.md
// "Kubeconfig resolution"), refuses what must never be read (the bench
// kubeconfig for prod, --kubeconfig for the bench), loads the target
// (LoadTargetWith: explicit files, a transport that refuses every method but
// GET/HEAD/OPTIONS, every host but the target's and every redirect), guards
// it (an interactive confirmation, or CheckEndpoint offline, DESIGN.md "The
// target and its confirmation"), and Opened.Read reads it with the prober of
// its kind: the kube prober (ReadNodes, ProbeCluster, ProbeTarget: server-side
// Tables and JSON) and, for lima, `limactl list --json`. Each target kind is
// one implementation of the small targetKind interface; the top of
// pipeline.go says exactly what a new kind implements.
//
// The package never prints, never reads the environment or the home folder by
// itself (the caller passes an Env and the home path), never falls back to
// ~/.kube/config or to the in-cluster config, and keeps no cache on disk.
// Every probe that fails leaves its part of the observation unknown with a
// reason; it is never reported as absent. Fetching a kubeconfig over ssh and
// reading Ansible inventories live in probes/ssh.
package probes

import (
	"fmt"
	"path/filepath"

	"nestor.dev/nestor/topology"
)

// Env looks up an environment variable; it has the shape of os.LookupEnv.
// ok is false when the variable is not set at all.
type Env func(key string) (value string, ok bool)

// Source says which rule of DESIGN.md "Kubeconfig resolution" chose the
// kubeconfig nestor reads.
type Source string

// The kubeconfig sources, highest priority first (prod), then the bench rule
// (lima) and "none".
const (
	// SourceFlag is --kubeconfig PATH on the command line.
	SourceFlag Source = "--kubeconfig"
	// SourceEnv is KUBECONFIG exported in the environment (possibly a list).
	SourceEnv Source = "KUBECONFIG"
	// SourceTopology is the topology's `kubeconfig:` field.
	SourceTopology Source = "topology"
	// SourceBench is the bench's own generated kubeconfig of a lima stack.
	SourceBench Source = "bench"
	// SourceNone means no rule gave a kubeconfig: there is no target.
	SourceNone Source = ""
)

// Kubeconfig is the result of ResolveKubeconfig: the files to read, in
// order (first-wins merge when there are several), and the rule that chose
// them.
type Kubeconfig struct {
	// Paths are absolute, with ~ expanded (a relative --kubeconfig or
	// KUBECONFIG entry is taken from the working directory, a relative
	// `kubeconfig:` from the topology file's folder). Empty, never nil, when
	// Source is SourceNone.
	Paths []string `json:"paths"`
	// Source is the rule that won.
	Source Source `json:"source"`
	// Detail says the rule in words for the target line, e.g.
	// "kubeconfig: in /abs/dirqual.yaml" or "KUBECONFIG in the environment";
	// for SourceNone it says what was looked at.
	Detail string `json:"detail"`
}

// None reports whether no kubeconfig was resolved (no target).
func (k Kubeconfig) None() bool { return k.Source == SourceNone || len(k.Paths) == 0 }

// ResolveOptions are the inputs of ResolveKubeconfig.
type ResolveOptions struct {
	// Flag is the --kubeconfig value ("" when the flag was not given).
	Flag string
	// Env looks up KUBECONFIG; nil means an empty environment.
	Env Env
	// Home is the user's home folder, used to expand a leading ~.
	Home string
	// Topology is the stack; nil when the command has no stack (then only
	// the flag and KUBECONFIG apply).
	Topology *topology.Topology
}

// ResolveKubeconfig decides which kubeconfig file(s) a command reads, by the
// rules of DESIGN.md "Kubeconfig resolution" and issue 3:
//
// prod (or no topology), first rule that is set wins:
//  1. o.Flag (--kubeconfig PATH), Source SourceFlag;
//  2. KUBECONFIG from o.Env: a colon-separated list, empty entries dropped,
//     duplicates dropped (client-go's rule); exported but empty (or only
//     colons) counts as not set; Source SourceEnv;
//  3. the topology's `kubeconfig:`, ~ expanded with o.Home and a relative
//     path taken from the topology file's folder; Source SourceTopology;
//  4. otherwise Source SourceNone with no paths and no error: no target.
//
// A leading ~ or ~/ in the flag, KUBECONFIG and kubeconfig: paths is
// expanded with o.Home by one expander (client-go never expands ~); a
// relative flag or KUBECONFIG entry is taken from the working directory.
// ~/.kube/config and the in-cluster config are never used.
//
// lima: only the bench kubeconfig, Topology.BenchKubeconfig(o.Home), Source
// SourceBench; KUBECONFIG is ignored, and a --kubeconfig flag is an error (the
// bench is nestor's own and read through its own file only).
//
// Errors: --kubeconfig on a lima stack; a ~ that cannot be expanded, in any
// of the three sources: o.Home is "" ("HOME is not set: cannot expand ~ in
// kubeconfig: of FILE (~/x); write the full path"), or the ~user form
// ("~user paths are not supported", naming the flag, KUBECONFIG or the
// topology file).
func ResolveKubeconfig(o ResolveOptions) (Kubeconfig, error) {
	t := o.Topology
	if t != nil && t.TargetKind == topology.TargetLima {
		bench := t.BenchKubeconfig(o.Home)
		if o.Flag != "" {
			return Kubeconfig{}, fmt.Errorf("--kubeconfig cannot be used with the lima stack %s: nestor reads a bench only through its own kubeconfig (%s); drop --kubeconfig", t.Name, bench)
		}
		detail := "the bench kubeconfig (default for stack " + t.Name + ")"
		if t.Lima != nil && t.Lima.Kubeconfig != "" {
			detail = "lima.kubeconfig in " + t.Path
		}
		return Kubeconfig{Paths: []string{bench}, Source: SourceBench, Detail: detail}, nil
	}

	if o.Flag != "" {
		p, err := expandUserPath(o.Flag, o.Home, "", "--kubeconfig")
		if err != nil {
			return Kubeconfig{}, err
		}
		return Kubeconfig{Paths: []string{p}, Source: SourceFlag, Detail: "--kubeconfig on the command line"}, nil
	}

	if o.Env != nil {
		if v, ok := o.Env("KUBECONFIG"); ok {
			var paths []string
			seen := map[string]bool{}
			for _, entry := range filepath.SplitList(v) {
				if entry == "" {
					continue
				}
				p, err := expandUserPath(entry, o.Home, "", "KUBECONFIG")
				if err != nil {
					return Kubeconfig{}, err
				}
				if seen[p] {
					continue
				}
				seen[p] = true
				paths = append(paths, p)
			}
			if len(paths) > 0 {
				return Kubeconfig{Paths: paths, Source: SourceEnv, Detail: "KUBECONFIG in the environment"}, nil
			}
		}
	}

	if t != nil && t.Kubeconfig != "" {
		p, err := expandUserPath(t.Kubeconfig, o.Home, filepath.Dir(t.Path), "kubeconfig: of "+t.Path)
		if err != nil {
			return Kubeconfig{}, err
		}
		return Kubeconfig{Paths: []string{p}, Source: SourceTopology, Detail: "kubeconfig: in " + t.Path}, nil
	}

	detail := "no --kubeconfig, no KUBECONFIG"
	if t != nil {
		detail += ", no kubeconfig: in " + t.Path
	}
	return Kubeconfig{Paths: []string{}, Source: SourceNone, Detail: detail}, nil
}

// expandUserPath is topology.ExpandHome, for the --kubeconfig flag, each
// KUBECONFIG entry and the topology's kubeconfig: (see it for the rules and
// errors).
func expandUserPath(p, home, base, what string) (string, error) {
	return topology.ExpandHome(p, home, base, what)
}
