package topology

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestSetKubeconfig(t *testing.T) {
	const v = "~/.kube/dirqual.config"
	tests := []struct {
		name  string
		in    string
		value string // default v
		want  string
	}{
		{
			name: "after target_kind, comments and blank lines kept",
			in: `# stacks/dirqual.yaml — the operator's comments
name: dirqual                      # required

target_kind: prod                  # required: lima | prod
endpoint: https://10.67.2.11:6443
# kubeconfig: ~/.kube/old.config
nodes:
    - {name: dirqual1, role: control-plane}   # odd indent kept
layers:
  - cilium
`,
			want: `# stacks/dirqual.yaml — the operator's comments
name: dirqual                      # required

target_kind: prod                  # required: lima | prod
kubeconfig: ~/.kube/dirqual.config
endpoint: https://10.67.2.11:6443
# kubeconfig: ~/.kube/old.config
nodes:
    - {name: dirqual1, role: control-plane}   # odd indent kept
layers:
  - cilium
`,
		},
		{
			name: "CRLF line ends",
			in:   "name: dirqual\r\ntarget_kind: prod\r\nnodes:\r\n  - {name: a, role: control-plane}\r\n",
			want: "name: dirqual\r\ntarget_kind: prod\r\nkubeconfig: ~/.kube/dirqual.config\r\nnodes:\r\n  - {name: a, role: control-plane}\r\n",
		},
		{
			name: "no final newline, target_kind last",
			in:   "name: dirqual\ntarget_kind: prod",
			want: "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config",
		},
		{
			name: "no final newline, CRLF, target_kind last",
			in:   "name: dirqual\r\ntarget_kind: prod",
			want: "name: dirqual\r\ntarget_kind: prod\r\nkubeconfig: ~/.kube/dirqual.config",
		},
		{
			name: "no final newline elsewhere",
			in:   "target_kind: prod\nname: dirqual\nlayers: [cilium]",
			want: "target_kind: prod\nkubeconfig: ~/.kube/dirqual.config\nname: dirqual\nlayers: [cilium]",
		},
		{
			name: "after name when there is no target_kind",
			in:   "# c\nname: dirqual\nlayers: [cilium]\n",
			want: "# c\nname: dirqual\nkubeconfig: ~/.kube/dirqual.config\nlayers: [cilium]\n",
		},
		{
			name: "at the top after leading comments",
			in:   "# header\n\n# more\nlayers: [cilium]\n",
			want: "# header\n\n# more\nkubeconfig: ~/.kube/dirqual.config\nlayers: [cilium]\n",
		},
		{
			name: "anchors, aliases and merge keys untouched",
			in: `name: dirqual
target_kind: prod
nodes:
  - &cp {name: dirqual1, role: control-plane}
  - <<: *cp
    name: dirqual2
`,
			want: `name: dirqual
target_kind: prod
kubeconfig: ~/.kube/dirqual.config
nodes:
  - &cp {name: dirqual1, role: control-plane}
  - <<: *cp
    name: dirqual2
`,
		},
		{
			name: "quoted keys and values",
			in:   "\"name\": 'dirqual'\n\"target_kind\": \"prod\"   # quoted\nlayers: ['cilium']\n",
			want: "\"name\": 'dirqual'\n\"target_kind\": \"prod\"   # quoted\nkubeconfig: ~/.kube/dirqual.config\nlayers: ['cilium']\n",
		},
		{
			name: "document start marker and BOM",
			in:   "\xEF\xBB\xBF---\nname: dirqual\ntarget_kind: prod\n",
			want: "\xEF\xBB\xBF---\nname: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\n",
		},
		{
			name: "empty key filled in place, comment kept",
			in:   "name: dirqual\ntarget_kind: prod\nkubeconfig:   # fetched by discover --cp\nlayers: []\n",
			want: "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config   # fetched by discover --cp\nlayers: []\n",
		},
		{
			name: "null key filled in place",
			in:   "name: dirqual\ntarget_kind: prod\nkubeconfig: ~\n",
			want: "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\n",
		},
		{
			name: "explicit null with comment, CRLF",
			in:   "kubeconfig: null  # todo\r\nname: dirqual\r\ntarget_kind: prod\r\n",
			want: "kubeconfig: ~/.kube/dirqual.config  # todo\r\nname: dirqual\r\ntarget_kind: prod\r\n",
		},
		{
			name: "empty string, no final newline",
			in:   "name: dirqual\ntarget_kind: prod\nkubeconfig: \"\"",
			want: "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config",
		},
		{
			name: "quoted empty key filled",
			in:   "name: dirqual\n'kubeconfig' :\ntarget_kind: prod\n",
			want: "name: dirqual\n'kubeconfig' : ~/.kube/dirqual.config\ntarget_kind: prod\n",
		},
		{
			name: "nested kubeconfig is not the top-level key",
			in:   "name: bench\ntarget_kind: prod\nlima:\n  kubeconfig: x\n",
			want: "name: bench\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\nlima:\n  kubeconfig: x\n",
		},
		{
			name:  "value that needs quoting",
			in:    "name: dirqual\ntarget_kind: prod\n",
			value: "~/kube configs/#1: dirqual",
			want:  "name: dirqual\ntarget_kind: prod\nkubeconfig: \"~/kube configs/#1: dirqual\"\n",
		},
		{
			name:  "value YAML would read as another type",
			in:    "name: dirqual\ntarget_kind: prod\n",
			value: "true",
			want:  "name: dirqual\ntarget_kind: prod\nkubeconfig: \"true\"\n",
		},
		{
			name: "comments only",
			in:   "# nothing yet\n",
			want: "# nothing yet\nkubeconfig: ~/.kube/dirqual.config\n",
		},
		{
			name: "comments only, no final newline",
			in:   "# nothing yet",
			want: "# nothing yet\nkubeconfig: ~/.kube/dirqual.config",
		},
		{
			name: "empty file",
			in:   "",
			want: "kubeconfig: ~/.kube/dirqual.config\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			value := tc.value
			if value == "" {
				value = v
			}
			got, err := SetKubeconfig([]byte(tc.in), value)
			if err != nil {
				t.Fatalf("SetKubeconfig: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tc.want)
			}
			var m map[string]any
			if err := yaml.Unmarshal(got, &m); err != nil || m["kubeconfig"] != value {
				t.Errorf("re-parse: %v, kubeconfig = %#v", err, m["kubeconfig"])
			}
			// Exactly one line more, or the same count when filled in place.
			dl := strings.Count(string(got), "\n") - strings.Count(tc.in, "\n")
			if dl != 0 && dl != 1 {
				t.Errorf("line count changed by %d", dl)
			}
		})
	}
}

func TestSetKubeconfigParsesAsTopology(t *testing.T) {
	in := "# prod\r\nname: dirqual\r\ntarget_kind: prod\r\nendpoint: https://10.0.0.1:6443\r\nnodes:\r\n  - {name: d1, role: control-plane}\r\nlayers: [cilium]"
	out, err := SetKubeconfig([]byte(in), "~/.kube/dirqual.config")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Parse("stacks/dirqual.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Kubeconfig != "~/.kube/dirqual.config" || tp.Endpoint != "https://10.0.0.1:6443" {
		t.Errorf("parsed %+v", tp)
	}
}

func TestSetKubeconfigErrors(t *testing.T) {
	tests := []struct {
		name, in, value, want string
	}{
		{"already set", "name: d\ntarget_kind: prod\nkubeconfig: ~/.kube/other\n", "x", `kubeconfig: is already set (line 3: "~/.kube/other")`},
		{"already set on next line", "name: d\nkubeconfig:\n  ~/.kube/other\n", "x", "already set"},
		{"not YAML", "name: [d\n", "x", "not valid YAML"},
		{"flow mapping", "{name: d, target_kind: prod}\n", "x", "flow mapping"},
		{"list", "- a\n", "x", "not a mapping"},
		{"empty value", "name: d\n", "", "value to set is empty"},
		{"kubeconfig is a mapping", "kubeconfig: {a: b}\n", "x", "not a single value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SetKubeconfig([]byte(tc.in), tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q (out %q)", err, tc.want, out)
			}
			if out != nil {
				t.Errorf("output on error: %q", out)
			}
		})
	}
}
