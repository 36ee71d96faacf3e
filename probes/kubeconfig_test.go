package probes

import (
	"nestor.dev/nestor/probes/internal/probetest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

func envOf(vars map[string]string) Env { return probetest.EnvOf(vars) }

func TestResolveKubeconfigProd(t *testing.T) {
	// KUBECONFIG entries are looked at on disk (a missing one is skipped):
	// the files of this test exist.
	home := t.TempDir()
	for _, f := range []string{"env.conf", "a.conf", "b.conf"} {
		writeFile(t, filepath.Join(home, f), kubeconfigText("c", map[string]string{"c": "https://10.0.0.1:6443"}, map[string][2]string{"c": {"c", "u"}}))
	}
	envConf, aConf, bConf := filepath.Join(home, "env.conf"), filepath.Join(home, "a.conf"), filepath.Join(home, "b.conf")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	prod := &topology.Topology{Path: "/srv/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Kubeconfig: "~/.kube/dirqual.config"}
	relative := &topology.Topology{Path: "/srv/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Kubeconfig: "../kube/dirqual.config"}
	bare := &topology.Topology{Path: "/srv/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd}

	tests := []struct {
		name       string
		opts       ResolveOptions
		wantPaths  []string
		wantSource Source
		wantDetail string
	}{
		{
			name:       "flag beats KUBECONFIG and topology",
			opts:       ResolveOptions{Flag: "/etc/k/flag.conf", Env: envOf(map[string]string{"KUBECONFIG": envConf}), Home: home, Topology: prod},
			wantPaths:  []string{"/etc/k/flag.conf"},
			wantSource: SourceFlag,
			wantDetail: "--kubeconfig on the command line",
		},
		{
			name:       "flag with ~",
			opts:       ResolveOptions{Flag: "~/k.conf", Home: home, Topology: prod},
			wantPaths:  []string{filepath.Join(home, "k.conf")},
			wantSource: SourceFlag,
		},
		{
			name:       "relative flag is taken from the working directory",
			opts:       ResolveOptions{Flag: "k.conf", Home: home, Topology: prod},
			wantPaths:  []string{filepath.Join(wd, "k.conf")},
			wantSource: SourceFlag,
		},
		{
			name:       "KUBECONFIG beats topology",
			opts:       ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": envConf}), Home: home, Topology: prod},
			wantPaths:  []string{envConf},
			wantSource: SourceEnv,
			wantDetail: "KUBECONFIG in the environment",
		},
		{
			name:       "KUBECONFIG list: order kept, empty entries and duplicates dropped, ~ expanded",
			opts:       ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": aConf + ":~/b.conf:" + aConf}), Home: home, Topology: prod},
			wantPaths:  []string{aConf, bConf},
			wantSource: SourceEnv,
		},
		{
			name:       "KUBECONFIG exported but empty counts as not set",
			opts:       ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": ""}), Home: home, Topology: prod},
			wantPaths:  []string{filepath.Join(home, ".kube", "dirqual.config")},
			wantSource: SourceTopology,
			wantDetail: "kubeconfig: in /srv/stacks/dirqual.yaml",
		},
		{
			name:       "KUBECONFIG of colons only counts as not set",
			opts:       ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": "::"}), Home: home, Topology: prod},
			wantPaths:  []string{filepath.Join(home, ".kube", "dirqual.config")},
			wantSource: SourceTopology,
		},
		{
			name:       "topology kubeconfig relative to the topology file",
			opts:       ResolveOptions{Env: envOf(nil), Home: home, Topology: relative},
			wantPaths:  []string{"/srv/kube/dirqual.config"},
			wantSource: SourceTopology,
		},
		{
			name:       "nothing set: no target, never ~/.kube/config",
			opts:       ResolveOptions{Env: envOf(map[string]string{"HOME": home}), Home: home, Topology: bare},
			wantPaths:  nil,
			wantSource: SourceNone,
			wantDetail: "no --kubeconfig, no KUBECONFIG, no kubeconfig: in /srv/stacks/dirqual.yaml",
		},
		{
			name:       "no topology, nil Env: no target",
			opts:       ResolveOptions{Home: home},
			wantPaths:  nil,
			wantSource: SourceNone,
		},
		{
			name:       "no topology: KUBECONFIG still applies",
			opts:       ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": envConf}), Home: home},
			wantPaths:  []string{envConf},
			wantSource: SourceEnv,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveKubeconfig(tc.opts)
			if err != nil {
				t.Fatalf("ResolveKubeconfig: %v", err)
			}
			if tc.wantPaths == nil {
				tc.wantPaths = []string{}
			}
			if !reflect.DeepEqual(got.Paths, tc.wantPaths) {
				t.Errorf("Paths = %q, want %q", got.Paths, tc.wantPaths)
			}
			if got.Source != tc.wantSource {
				t.Errorf("Source = %q, want %q", got.Source, tc.wantSource)
			}
			if tc.wantDetail != "" && got.Detail != tc.wantDetail {
				t.Errorf("Detail = %q, want %q", got.Detail, tc.wantDetail)
			}
			if got.None() != (tc.wantSource == SourceNone) {
				t.Errorf("None() = %v for source %q", got.None(), got.Source)
			}
			if len(got.Warnings) != 0 {
				t.Errorf("Warnings = %q, want none", got.Warnings)
			}
		})
	}
}

func TestResolveKubeconfigTildeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ResolveOptions
		want string
	}{
		{"flag ~ without home", ResolveOptions{Flag: "~/k.conf"}, "HOME is not set: cannot expand ~ in --kubeconfig (~/k.conf)"},
		{"KUBECONFIG ~ without home", ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": "/a:~/k.conf"})}, "HOME is not set: cannot expand ~ in KUBECONFIG (~/k.conf)"},
		{"~user form", ResolveOptions{Flag: "~bob/k.conf", Home: "/home/op"}, "--kubeconfig (~bob/k.conf): ~user paths are not supported"},
		{"KUBECONFIG ~user form", ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": "~bob/k.conf"}), Home: "/home/op"}, "KUBECONFIG (~bob/k.conf): ~user paths are not supported"},
		// The topology's kubeconfig: follows the same rule (it used to
		// resolve to a relative "~/.kube/x", or to "<dir>/~bob/x").
		{"kubeconfig: ~ without home", ResolveOptions{Topology: tildeTopology("~/.kube/dirqual.config")},
			"HOME is not set: cannot expand ~ in kubeconfig: of /srv/stacks/dirqual.yaml (~/.kube/dirqual.config)"},
		{"kubeconfig: bare ~ without home", ResolveOptions{Topology: tildeTopology("~")},
			"HOME is not set: cannot expand ~ in kubeconfig: of /srv/stacks/dirqual.yaml (~)"},
		{"kubeconfig: ~user form", ResolveOptions{Home: "/home/op", Topology: tildeTopology("~bob/x")},
			"kubeconfig: of /srv/stacks/dirqual.yaml (~bob/x): ~user paths are not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ResolveKubeconfig(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func tildeTopology(kubeconfig string) *topology.Topology {
	return &topology.Topology{Path: "/srv/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd, Kubeconfig: kubeconfig}
}
