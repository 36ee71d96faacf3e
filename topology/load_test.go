package topology

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadValidFixtures(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, tp *Topology)
	}{
		{"valid-dirqual.yaml", func(t *testing.T, tp *Topology) {
			if tp.TargetKind != TargetProd || tp.Kubeconfig != "~/.kube/dirqual.config" || tp.Endpoint != "https://10.67.2.11:6443" {
				t.Errorf("top level: %+v", tp)
			}
			if tp.Kubernetes.Version != "1.36" || tp.Inventory != "../bootstrap/hosts.yaml" || tp.Backend != "ceph" {
				t.Errorf("version/inventory/backend: %+v", tp)
			}
			wantNodes := []Node{
				{Name: "dirqual1", Role: RoleControlPlane, Address: "10.67.2.11"},
				{Name: "dirqual2", Role: RoleWorker},
				{Name: "dirqual3", Role: RoleWorker, User: "ops", Port: 2222},
				{Name: "dirqual4", Role: RoleWorker}, // role defaults to worker
			}
			if !reflect.DeepEqual(tp.Nodes, wantNodes) {
				t.Errorf("nodes = %+v, want %+v", tp.Nodes, wantNodes)
			}
			last := tp.Layers[len(tp.Layers)-1]
			if last.Name != "mlflow" || last.Detect == nil || last.Detect.Deployment != "mlflow/mlflow" {
				t.Errorf("custom layer = %+v", last)
			}
			if tp.Lima != nil {
				t.Errorf("prod stack has lima settings")
			}
			if tp.Path != "testdata/valid-dirqual.yaml" {
				t.Errorf("Path %q, want the path as given (the stacks folder makes it absolute)", tp.Path)
			}
		}},
		{"valid-bench.yaml", func(t *testing.T, tp *Topology) {
			if tp.Lima == nil || tp.Lima.CPUs != 4 || tp.Lima.Memory != "4GiB" || tp.Lima.Disk != "100GiB" || tp.Lima.Template != "ubuntu-24.04" {
				t.Errorf("lima = %+v", tp.Lima)
			}
			// The second node merges the first (<<: *cp) and overrides name and role.
			want := []Node{{Name: "lima-node1", Role: RoleControlPlane}, {Name: "lima-node2", Role: RoleWorker}}
			if !reflect.DeepEqual(tp.Nodes, want) {
				t.Errorf("nodes = %+v, want %+v", tp.Nodes, want)
			}
			if len(tp.Layers) != 2 || tp.Layers[1].Name != "local-path" {
				t.Errorf("layers = %+v", tp.Layers)
			}
		}},
		{"valid-crlf.yaml", func(t *testing.T, tp *Topology) {
			// An unquoted 1.30 is a YAML float; the text is kept as written.
			if tp.Kubernetes.Version != "1.30" {
				t.Errorf("version = %q, want 1.30", tp.Kubernetes.Version)
			}
			if len(tp.Layers) != 1 || tp.Layers[0].Name != "metrics-server" {
				t.Errorf("layers = %+v", tp.Layers)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tp, err := load(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tc.check(t, tp)
		})
	}
}

func TestLoadInvalidFixtures(t *testing.T) {
	tests := []struct {
		file string
		want []string // each Error(), in order, complete
	}{
		{"invalid-empty.yaml", []string{
			"testdata/invalid-empty.yaml:1:1: the file is empty (start with name: and target_kind:)",
		}},
		{"invalid-list.yaml", []string{
			"testdata/invalid-list.yaml:1:1: the topology must be a mapping of keys (name:, target_kind:, …), found a list (write it as key: value lines)",
		}},
		{"invalid-multidoc.yaml", []string{
			"testdata/invalid-multidoc.yaml:3:1: the file holds more than one YAML document (keep one topology per file; remove the '---' and what follows)",
		}},
		{"invalid-syntax.yaml", []string{
			"testdata/invalid-syntax.yaml:3: invalid YAML: did not find expected ',' or ']' (fix the YAML syntax)",
		}},
		{"invalid-missing.yaml", []string{
			"testdata/invalid-missing.yaml:2:1: name: is required (add name: invalid-missing)",
			"testdata/invalid-missing.yaml:2:1: target_kind: is required (add target_kind: prod (an existing cluster), target_kind: kapsule (a Scaleway Kapsule cluster) or target_kind: lima (a local bench))",
		}},
		{"invalid-unknown-keys.yaml", []string{
			"testdata/invalid-unknown-keys.yaml:3:1: kubeconfg: unknown key \"kubeconfg\" in the top level (did you mean kubeconfig? allowed keys: name, target_kind, kubeconfig, endpoint, kubernetes, inventory, nodes, backend, layers, lima, scaleway, pools)",
			"testdata/invalid-unknown-keys.yaml:5:3: kubernetes.verison: unknown key \"verison\" in kubernetes (did you mean version? allowed keys: version, auto_upgrade)",
			"testdata/invalid-unknown-keys.yaml:7:37: nodes[0].adress: unknown key \"adress\" in nodes[0] (did you mean address? allowed keys: name, role, address, user, port, key)",
			"testdata/invalid-unknown-keys.yaml:8:1: lima: lima: is only for target_kind: lima (remove the lima: section)",
		}},
		{"invalid-types.yaml", []string{
			"testdata/invalid-types.yaml:3:11: endpoint: must be a string, found a boolean (true) (quote it if it is meant as text)",
			"testdata/invalid-types.yaml:4:8: nodes: must be a list, found a mapping (write a list: - {name: NODE, role: control-plane})",
			"testdata/invalid-types.yaml:5:9: layers: must be a list, found the string \"cilium\" (write a list: - cilium)",
			"testdata/invalid-types.yaml:6:13: kubernetes: must be a mapping, found the string \"1.36\" (write it as kubernetes: {version: \"1.36\"})",
			"testdata/invalid-types.yaml:7:12: inventory: must be a string, found a list (write a single value)",
		}},
		{"invalid-lima-kubeconfig.yaml", []string{
			"testdata/invalid-lima-kubeconfig.yaml:3:1: kubeconfig: a top-level kubeconfig: is for prod stacks; a lima bench uses its own generated kubeconfig (lima.kubeconfig) (remove it, or set the bench kubeconfig as lima.kubeconfig)",
			"testdata/invalid-lima-kubeconfig.yaml:4:16: lima.memory: \"lots\" is not a size (write a size such as \"4GiB\" or \"100GiB\")",
			"testdata/invalid-lima-kubeconfig.yaml:4:28: lima.cpus: must be an integer, found the string \"two\" (write a whole number)",
			"testdata/invalid-lima-kubeconfig.yaml:6:3: nodes: no control-plane node declared (set role: control-plane on at least one node)",
			"testdata/invalid-lima-kubeconfig.yaml:7:10: backend: backend \"ceph\" is the layer rook-ceph, which is not declared in layers: (add - rook-ceph to layers:)",
		}},
		{"invalid-values.yaml", []string{
			"testdata/invalid-values.yaml:1:7: name: \"Wrong_Name\" is not a valid stack name (use lowercase letters, digits and '-', starting with a letter or digit: name: wrong-name, in a file renamed wrong-name.yaml)",
			"testdata/invalid-values.yaml:2:14: target_kind: \"cloud\" is not a target kind (use lima, prod or kapsule)",
			"testdata/invalid-values.yaml:3:11: endpoint: \"http://10.0.0.1:6443\" is not an https URL with a host (write the API server URL, e.g. https://10.0.0.1:6443)",
			"testdata/invalid-values.yaml:4:23: kubernetes.version: \"latest\" is not a Kubernetes version (write a minor (\"1.36\") or a full version (\"1.36.2\"), quoted)",
			"testdata/invalid-values.yaml:6:22: nodes[0].role: \"master\" is not a role (did you mean control-plane? use control-plane or worker)",
			"testdata/invalid-values.yaml:6:36: nodes[0].port: 70000 is out of range (use a port between 1 and 65535)",
			"testdata/invalid-values.yaml:7:12: nodes[1].name: \"N_2\" is not a valid node name (use lowercase letters, digits, '-' and '.' (a DNS-1123 subdomain, as Kubernetes names nodes))",
			"testdata/invalid-values.yaml:8:12: nodes[2].name: duplicate node \"n1\" (first declared at line 6) (remove one of them or rename it)",
			"testdata/invalid-values.yaml:9:5: nodes[3].name: a node needs a name (add name: NODE)",
			"testdata/invalid-values.yaml:10:10: backend: \"cnpg\" is a database layer, not a storage backend (storage layers: rook-ceph, local-path, longhorn (alias: ceph))",
			"testdata/invalid-values.yaml:12:5: layers[0]: \"cillium\" is not in the layer catalog and has no detect: (did you mean cilium? or declare a custom layer: {name: cillium, detect: {deployment: NAMESPACE/NAME}})",
			"testdata/invalid-values.yaml:14:5: layers[2]: duplicate layer \"cnpg\" (first declared at line 13) (remove one of them)",
			"testdata/invalid-values.yaml:15:11: layers[3]: \"mlflow\" is not in the layer catalog and has no detect: (catalog layers: cilium, calico, flannel, rook-ceph, local-path, longhorn, cnpg, kube-prometheus-stack, argocd, flux, cert-manager, ingress-nginx, traefik, metallb, external-secrets, metrics-server, registry, harbor; or declare a custom layer: {name: mlflow, detect: {deployment: NAMESPACE/NAME}})",
			"testdata/invalid-values.yaml:17:26: layers[4].detect.deployment: \"no-slash\" is not NAMESPACE/NAME (write NAMESPACE/NAME, e.g. mlflow/mlflow)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tp, err := load(filepath.Join("testdata", tc.file))
			if err == nil {
				t.Fatalf("Load succeeded: %+v", tp)
			}
			if tp != nil {
				t.Errorf("Load returned a topology with an error")
			}
			es := AsErrors(err)
			var got []string
			for _, e := range es {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var first *Error
			if !errors.As(err, &first) || first.Error() != tc.want[0] {
				t.Errorf("errors.As(*Error) = %v, want the first error", first)
			}
		})
	}
}

// TestParseRules covers each rule on small inline files.
func TestParseRules(t *testing.T) {
	const head = "name: s\ntarget_kind: prod\n"
	tests := []struct {
		name string
		path string // default s.yaml
		data string
		want string // substring of the error; "" = valid
	}{
		{"minimal prod", "", head, ""},
		{"yml extension", "stacks/s.yml", head, ""},
		{"name differs from file", "other.yaml", head, `1:7: name: "s" must equal the file's base name "other" (rename the file to s.yaml or set name: other)`},
		{"name starting with dash", "-s.yaml", "name: -s\ntarget_kind: prod\n", `name: "-s" is not a valid stack name`},
		{"name null", "", "name:\ntarget_kind: prod\n", "1:6: name: is required"},
		{"target_kind typo", "", "name: s\ntarget_kind: prd\n", `2:14: target_kind: "prd" is not a target kind (did you mean prod? use lima, prod or kapsule)`},
		{"endpoint without host", "", head + "endpoint: https:///x\n", `endpoint: "https:///x" is not an https URL with a host`},
		{"endpoint bad port", "", head + "endpoint: https://h:99999\n", `port 99999 is out of range (1-65535)`},
		{"endpoint ok", "", head + "endpoint: https://api.example.com\n", ""},
		{"endpoint IPv6 in brackets", "", head + "endpoint: https://[2001:db8:0:0:0:0:0:10]:6443\n", ""},
		{"endpoint IPv6 without brackets", "", head + "endpoint: https://2001:db8:6:0:0:0:0:10:6443\n",
			`endpoint: "https://2001:db8:6:0:0:0:0:10:6443" is not an https URL with a host (an IPv6 literal needs brackets: https://[2001:db8:6:0:0:0:0:10]:6443)`},
		{"version full with v", "", head + "kubernetes: {version: v1.36.2}\n", ""},
		{"version major only", "", head + "kubernetes: {version: \"1\"}\n", `kubernetes.version: "1" is not a Kubernetes version`},
		{"version four parts", "", head + "kubernetes: {version: 1.36.2.1}\n", `is not a Kubernetes version`},
		{"node name too long", "", head + "nodes: [{name: " + strings.Repeat("a", 64) + "." + strings.Repeat("b", 190) + ", role: control-plane}]\n", "is not a valid node name"},
		{"port not a number", "", head + "nodes: [{name: a, role: control-plane, port: ssh}]\n", `nodes[0].port: must be an integer, found the string "ssh"`},
		{"port zero", "", head + "nodes: [{name: a, role: control-plane, port: 0}]\n", "nodes[0].port: 0 is out of range"},
		{"role empty", "", head + "nodes: [{name: a, role: \"\"}]\n", "nodes[0].role: role is empty"},
		{"role typo worker", "", head + "nodes: [{name: a, role: control-plane}, {name: b, role: woker}]\n", `"woker" is not a role (did you mean worker? use control-plane or worker)`},
		{"node is a string", "", head + "nodes: [a]\n", `nodes[0]: must be a mapping, found the string "a"`},
		{"duplicate key", "", head + "name: t\n", `3:1: name: duplicate key "name" (first at line 1)`},
		{"layer in catalog by alias", "", head + "layers: [ceph]\n", `"ceph" is not in the layer catalog and has no detect: (the catalog calls it rook-ceph;`},
		{"layer reserved name", "", head + "layers: [{name: k8s, detect: {namespace: k8s}}]\n", `"k8s" is the name of a fixed phase`},
		{"layer bad name", "", head + "layers: [{name: My_App, detect: {namespace: app}}]\n", `"My_App" is not a valid layer name`},
		{"detect empty", "", head + "layers: [{name: app, detect: {}}]\n", "layers[0].detect: detect: is empty"},
		{"detect unknown key", "", head + "layers: [{name: app, detect: {deploy: a/b}}]\n", `unknown key "deploy" in layers[0].detect (did you mean deployment?`},
		{"detect crd group", "", head + "layers: [{name: app, detect: {crd_group: app}}]\n", `detect.crd_group: "app" is not an API group`},
		{"detect namespace only", "", head + "layers: [{name: app, detect: {namespace: app}}]\n", ""},
		{"detect all", "", head + "layers: [{name: app, detect: {deployment: a/b, daemonset: a/c, statefulset: a/d.e, namespace: a, crd_group: app.example.com}}]\n", ""},
		{"layer mapping with catalog name", "", head + "layers: [{name: cilium}]\n", ""},
		{"layer unknown key", "", head + "layers: [{name: cilium, version: 1}]\n", `unknown key "version" in layers[0]`},
		{"backend unknown", "", head + "backend: nfs\nlayers: [cilium]\n", `backend: "nfs" is not a storage layer of the catalog`},
		{"backend longhorn declared", "", head + "backend: longhorn\nlayers: [longhorn]\n", ""},
		{"backend full name", "", head + "backend: rook-ceph\nlayers: [rook-ceph]\n", ""},
		{"lima empty memory unit", "", "name: s\ntarget_kind: lima\nlima: {memory: \"4G\", disk: 20480}\n", ""},
		{"lima cpus zero", "", "name: s\ntarget_kind: lima\nlima: {cpus: 0}\n", "lima.cpus: 0 is not a CPU count"},
		{"lima unknown key", "", "name: s\ntarget_kind: lima\nlima: {cpu: 2}\n", `unknown key "cpu" in lima (did you mean cpus?`},
		{"lima kubeconfig ok", "", "name: s\ntarget_kind: lima\nlima: {kubeconfig: ../.work/s/kubeconfig}\n", ""},
		{"lima is not a mapping", "", "name: s\ntarget_kind: lima\nlima: true\n", "lima: must be a mapping, found a boolean"},
		{"comments only", "", "# nothing\n", "the file is empty"},
		{"null document", "", "~\n", "the file is empty"},
		{"scalar document", "", "hello\n", `found the string "hello"`},
		{"alias value", "", "name: &n s\ntarget_kind: prod\nnodes: [{name: *n, role: control-plane}]\n", ""},
		{"merge of non-mapping", "", head + "nodes: [{<<: 3, name: a, role: control-plane}]\n", "<< needs a mapping"},
		{"complex key", "", head + "? [a]\n: b\n", "a key must be a plain name, found a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = "s.yaml"
			}
			tp, err := Parse(path, []byte(tc.data))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if tp == nil {
					t.Fatal("nil topology")
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse succeeded, want error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("error does not start with the file name: %v", err)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "f.yaml", Line: 3, Column: 5, Field: "nodes[0].name", Msg: "bad", Fix: "fix it"}, "f.yaml:3:5: nodes[0].name: bad (fix it)"},
		{Error{File: "f.yaml", Line: 3, Msg: "bad"}, "f.yaml:3: bad"},
		{Error{File: "f.yaml", Msg: "bad", Fix: "x"}, "f.yaml: bad (x)"},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	es := Errors{{File: "f", Line: 2, Msg: "b"}, {File: "f", Line: 1, Msg: "a"}}
	es.sort()
	if es.Error() != "f:1: a\nf:2: b" {
		t.Errorf("Errors = %q", es.Error())
	}
}

// Node names follow Kubernetes' rule for Node objects (a DNS-1123 subdomain:
// cloud nodes are named ip-10-0-0-1.ec2.internal), except on a lima stack,
// whose nodes are Lima instances; a prod stack may declare no control plane
// (a hosted or unregistered one: a warning), a lima stack may not.
func TestParseNodeNamesAndControlPlaneByKind(t *testing.T) {
	prod := "name: s\ntarget_kind: prod\nnodes:\n  - {name: ip-10-0-0-1.ec2.internal, role: control-plane}\n  - {name: worker-1.eu-west-1.compute.internal}\n"
	if _, err := Parse("s.yaml", []byte(prod)); err != nil {
		t.Errorf("prod with dotted node names: %v", err)
	}
	lima := "name: s\ntarget_kind: lima\nnodes:\n  - {name: node1.local, role: control-plane}\n"
	if _, err := Parse("s.yaml", []byte(lima)); err == nil || !strings.Contains(err.Error(), "is not a valid Lima node name") {
		t.Errorf("lima with a dotted node name: %v", err)
	}
	workers := "name: s\ntarget_kind: prod\nnodes:\n  - {name: w1}\n  - {name: w2.example}\n"
	tp, err := Parse("s.yaml", []byte(workers))
	if err != nil {
		t.Fatalf("prod without a control-plane node: %v", err)
	}
	if len(tp.Warnings) != 1 || !strings.Contains(tp.Warnings[0], "s.yaml:4:3: nodes: no control-plane node declared") {
		t.Errorf("warnings = %q", tp.Warnings)
	}
	limaWorkers := "name: s\ntarget_kind: lima\nnodes:\n  - {name: w1}\n"
	if _, err := Parse("s.yaml", []byte(limaWorkers)); err == nil || !strings.Contains(err.Error(), "no control-plane node declared") {
		t.Errorf("lima without a control plane: %v", err)
	}
}
