// Package probes reads the actual state of a stack, and nothing else: the
// target pipeline and the kit every target kind reads with.
//
// Every command opens a stack's target through one pipeline (pipeline.go):
// Open resolves what the stack is read through (Kind.Resolve: the rules of
// ResolveKubeconfig, ARCHITECTURE.md "Kubeconfig resolution"), refuses what
// must never be read (another stack's bench kubeconfig), loads the target
// (LoadTargetWith: explicit files, a transport that refuses every method but
// GET/HEAD/OPTIONS, every host but the target's and every redirect), guards
// it (Kind.Guard: an interactive confirmation, or CheckEndpoint offline,
// ARCHITECTURE.md "The target and its confirmation"), and Opened.Read reads
// it with the kind's prober (Kind.Read), made of this package's kube reader
// (ReadNodes, ProbeCluster, ProbeTarget: server-side Tables and JSON). Each
// target kind is a package of its own implementing Kind (kind.go):
// probes/prod, probes/lima, probes/kapsule; this package names none of them.
//
// The package never prints, never reads the environment or the home folder by
// itself (the caller passes an Env and the home path), never falls back to
// ~/.kube/config or to the in-cluster config, and keeps no cache on disk.
// Every probe that fails leaves its part of the observation unknown with a
// reason; it is never reported as absent. Fetching a kubeconfig over ssh and
// reading Ansible inventories live in probes/ssh.
package probes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"nestor.dev/nestor/topology"
)

// Env looks up an environment variable; it has the shape of os.LookupEnv.
// ok is false when the variable is not set at all.
type Env func(key string) (value string, ok bool)

// Source says which rule of ARCHITECTURE.md "Kubeconfig resolution" chose the
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
	// Warnings are what the operator must be told about the resolution,
	// one sentence each (the caller prints them; the package never does):
	// the KUBECONFIG entries that were skipped, and why.
	Warnings []string `json:"warnings,omitempty"`
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
// rules of ARCHITECTURE.md "Kubeconfig resolution":
//
// prod (or no topology), first rule that is set wins:
//  1. o.Flag (--kubeconfig PATH), Source SourceFlag;
//  2. KUBECONFIG from o.Env: a list separated by filepath.ListSeparator
//     (":"), read the way kubectl reads it (client-go's
//     ClientConfigLoadingRules): duplicates dropped, and empty entries
//     ("a::b"), entries naming no file and empty files (0 bytes) skipped,
//     each named in Warnings. When no file is left, the entries are kept
//     as they are and loading them is the error (LoadTargetWith: "KUBECONFIG
//     lists no kubeconfig that exists", kubectl has no configuration then
//     either). Exported but empty (or only colons) counts as not set,
//     silently. The order of the files kept is the merge order (the first
//     file that sets a value wins, see LoadTargetWith); Source SourceEnv;
//  3. the topology's `kubeconfig:`, ~ expanded with o.Home and a relative
//     path taken from the topology file's folder; Source SourceTopology;
//  4. otherwise Source SourceNone with no paths and no error: no target.
//
// A leading ~ or ~/ in the flag, KUBECONFIG and kubeconfig: paths is
// expanded with o.Home by one expander (client-go never expands ~); a
// relative flag or KUBECONFIG entry is taken from the working directory.
// ~/.kube/config and the in-cluster config are never used.
//
// A kind with a file of its own (lima's bench) does not use these rules
// (Kind.Resolve).
//
// Errors: a ~ that cannot be expanded, in any
// of the three sources: o.Home is "" ("HOME is not set: cannot expand ~ in
// kubeconfig: of FILE (~/x); write the full path"), or the ~user form
// ("~user paths are not supported", naming the flag, KUBECONFIG or the
// topology file).
func ResolveKubeconfig(o ResolveOptions) (Kubeconfig, error) {
	t := o.Topology
	if o.Flag != "" {
		p, err := expandUserPath(o.Flag, o.Home, "", "--kubeconfig")
		if err != nil {
			return Kubeconfig{}, err
		}
		return Kubeconfig{Paths: []string{p}, Source: SourceFlag, Detail: "--kubeconfig on the command line"}, nil
	}

	if o.Env != nil {
		if v, ok := o.Env("KUBECONFIG"); ok && strings.Trim(v, string(filepath.ListSeparator)) != "" {
			return resolveKubeconfigList(v, o.Home)
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

// resolveKubeconfigList applies kubectl's rules for a KUBECONFIG list (v,
// with at least one non-empty entry) — client-go's
// ClientConfigLoadingRules.Load ignores empty entries, skips a file that
// does not exist and merges an empty file as nothing — and says what it
// skipped in Warnings, which kubectl does not. Entries are expanded with
// expandUserPath and deduplicated after expansion. A file that exists but
// cannot be read is kept: loading it is an error (LoadTargetWith), as it is
// for kubectl. When no entry is left, nothing is skipped: the entries are
// kept as they are, so that loading them fails with the loader's error
// ("does not exist", naming them and the fix), as kubectl fails with no
// configuration.
func resolveKubeconfigList(v, home string) (Kubeconfig, error) {
	kc := Kubeconfig{Paths: []string{}, Source: SourceEnv, Detail: "KUBECONFIG in the environment"}
	entries := filepath.SplitList(v)
	var all []string
	// warnings in the list's order; file says the entry named a file (such
	// a warning is dropped when nothing is left to skip it for).
	type warning struct {
		text string
		file bool
	}
	var warnings []warning
	warn := func(file bool, format string, args ...any) {
		warnings = append(warnings, warning{fmt.Sprintf(format, args...), file})
	}
	seen := map[string]bool{}
	for i, entry := range entries {
		if entry == "" {
			warn(false, "KUBECONFIG entry %d of %d is empty (KUBECONFIG=%s): skipped", i+1, len(entries), v)
			continue
		}
		p, err := expandUserPath(entry, home, "", "KUBECONFIG")
		if err != nil {
			return Kubeconfig{}, err
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		all = append(all, p)
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			warn(true, "KUBECONFIG entry %s does not exist: skipped", p)
		case err == nil && st.Mode().IsRegular() && st.Size() == 0:
			warn(true, "KUBECONFIG entry %s is an empty file: skipped", p)
		default:
			kc.Paths = append(kc.Paths, p)
		}
	}
	left := len(kc.Paths) > 0
	if !left {
		kc.Paths = all
	}
	for _, w := range warnings {
		if left || !w.file {
			kc.Warnings = append(kc.Warnings, w.text)
		}
	}
	return kc, nil
}

// expandUserPath is topology.ExpandHome, for the --kubeconfig flag, each
// KUBECONFIG entry and the topology's kubeconfig: (see it for the rules and
// errors).
func expandUserPath(p, home, base, what string) (string, error) {
	return topology.ExpandHome(p, home, base, what)
}

// SourceText says in words which rule chose the kubeconfig.
func SourceText(kc Kubeconfig) string {
	if kc.Detail != "" {
		return kc.Detail
	}
	return string(kc.Source)
}
