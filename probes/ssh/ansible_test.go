package ssh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/probes"
)

// ansibleCall is what a fake runner saw of one ansible-inventory run.
type ansibleCall struct {
	name    string
	args    []string
	env     map[string]string // the assignments given to env -i
	cfg     string            // the content of ANSIBLE_CONFIG during the run
	tail    []string          // ansible-inventory and its arguments
	scratch string
}

// fakeAnsible returns a Runner standing in for `env -i … ansible-inventory
// …`: it records the call (checking the config file exists while it runs)
// and answers stdout, stderr and err.
func fakeAnsible(t *testing.T, stdout []byte, stderr string, err error, calls *[]ansibleCall) probes.Runner {
	return func(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
		c := ansibleCall{name: name, args: args, env: map[string]string{}}
		i := 0
		if len(args) > 0 && args[0] == "-i" {
			i = 1
		}
		for ; i < len(args) && strings.Contains(args[i], "="); i++ {
			k, v, _ := strings.Cut(args[i], "=")
			c.env[k] = v
		}
		c.tail = args[i:]
		if p := c.env["ANSIBLE_CONFIG"]; p != "" {
			data, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Errorf("ANSIBLE_CONFIG %s does not exist during the run: %v", p, rerr)
			}
			c.cfg = string(data)
			c.scratch = filepath.Dir(p)
		}
		*calls = append(*calls, c)
		return stdout, []byte(stderr), err
	}
}

func readTestdata(t *testing.T, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// exitError returns a real *exec.ExitError with the given exit code.
func exitError(t *testing.T, code int) error {
	t.Helper()
	err := exec.Command("sh", "-c", fmt.Sprintf("exit %d", code)).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("sh exit %d: %v", code, err)
	}
	return err
}

// The command: env -i with the operator's PATH, HOME and UTF-8 locale
// only, an empty ansible.cfg that exists during the run and is removed
// after, the playbook folder in the same scratch folder, the inventory as
// an absolute path.
func TestAnsibleInventoryCommand(t *testing.T) {
	operator := map[string]string{
		"PATH": "/opt/ansible/bin:/usr/bin", "LANG": "de_DE.UTF-8",
		"ANSIBLE_CONFIG": "/operator/ansible.cfg", "ANSIBLE_VAULT_PASSWORD_FILE": "/operator/vault-pass",
		"ANSIBLE_PRECEDENCE": "groups_inventory", "PYTHONPATH": "/operator/py",
	}
	env := func(k string) (string, bool) { v, ok := operator[k]; return v, ok }
	var calls []ansibleCall
	data := readTestdata(t, "ansible-list", "handed-kubespray-ini.json")
	rel := filepath.Join("testdata", "inventory", "handed-kubespray-ini", "kubespray-inventory.ini")
	inv, err := LoadInventory(context.Background(), rel, InventoryOptions{Run: fakeAnsible(t, data, "", nil, &calls), Env: env, Home: "/home/op"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Reader != ReaderAnsible || inv.Why != "" || len(calls) != 1 {
		t.Fatalf("reader %q why %q, %d calls", inv.Reader, inv.Why, len(calls))
	}
	c := calls[0]
	abs, _ := filepath.Abs(rel)
	if c.name != "env" || c.args[0] != "-i" {
		t.Errorf("not run through env -i: %s %q", c.name, c.args)
	}
	if want := []string{"ansible-inventory", "--playbook-dir", c.scratch, "-i", abs, "--list"}; !reflect.DeepEqual(c.tail, want) {
		t.Errorf("command %q, want %q", c.tail, want)
	}
	wantEnv := map[string]string{
		"PATH": "/opt/ansible/bin:/usr/bin", "HOME": "/home/op", "LC_ALL": "de_DE.UTF-8",
		"ANSIBLE_CONFIG": filepath.Join(c.scratch, "ansible.cfg"), "ANSIBLE_HOME": c.scratch, "ANSIBLE_LOCAL_TEMP": c.scratch,
		"ANSIBLE_INVENTORY_UNPARSED_FAILED": "True", "ANSIBLE_NOCOLOR": "True", "ANSIBLE_DEPRECATION_WARNINGS": "False",
		"ANSIBLE_ASK_VAULT_PASS": "False", "PYTHONDONTWRITEBYTECODE": "1",
	}
	if !reflect.DeepEqual(c.env, wantEnv) {
		t.Errorf("environment\n got %v\nwant %v", c.env, wantEnv)
	}
	if strings.Contains(strings.Join(c.args, " "), "/operator/") {
		t.Errorf("the operator's Ansible settings reached ansible-inventory: %q", c.args)
	}
	if strings.TrimSpace(strings.Join(nonComments(c.cfg), "")) != "" {
		t.Errorf("the ansible.cfg given is not empty:\n%s", c.cfg)
	}
	if _, err := os.Stat(c.scratch); !os.IsNotExist(err) {
		t.Errorf("the scratch folder %s was left behind (%v)", c.scratch, err)
	}

	// A locale that is not UTF-8 (Ansible refuses it) gives C.UTF-8.
	operator["LANG"] = "C"
	calls = nil
	if _, err := LoadInventory(context.Background(), rel, InventoryOptions{Run: fakeAnsible(t, data, "", nil, &calls), Env: env}); err != nil {
		t.Fatal(err)
	}
	if calls[0].env["LC_ALL"] != "C.UTF-8" || calls[0].env["HOME"] != "" {
		t.Errorf("LANG=C, no home: %v", calls[0].env)
	}
}

func nonComments(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return out
}

// Recorded `ansible-inventory --list` outputs (testdata/ansible-list, made
// from testdata/inventory with Ansible 2.14) read as the runner's answer
// give the same hosts and settings as nestor's own readers on the same
// files. TestAnsibleRecordingsAreCurrent proves the recordings are what
// ansible-inventory prints.
func TestAnsibleInventoryRecorded(t *testing.T) {
	for rec, file := range recordedLists {
		t.Run(rec, func(t *testing.T) {
			var calls []ansibleCall
			path := filepath.Join("testdata", "inventory", rec, file)
			ans, err := LoadInventory(context.Background(), path, InventoryOptions{Run: fakeAnsible(t, readTestdata(t, "ansible-list", rec+".json"), "", nil, &calls)})
			if err != nil {
				t.Fatal(err)
			}
			own, err := readOwnInventory(path)
			if err != nil {
				t.Fatal(err)
			}
			compareInventories(t, own, ans)
		})
	}
}

// recordedLists maps each recording of testdata/ansible-list to the
// inventory file of testdata/inventory/NAME it was made from.
var recordedLists = map[string]string{
	"handed-kubespray-ini":  "kubespray-inventory.ini",
	"handed-k3s-ip-hosts":   "k3s-ansible-ip-hosts.yml",
	"yaml-address-variants": "hosts.yaml",
}

// compareInventories fails t unless own and ans have the same hosts and,
// for each, the same connection settings, or both refuse it. Groups are
// compared as sets (ansible-inventory does not print priorities, which
// order groups of the same depth) and without ungrouped, where Ansible
// puts a host of no other group and nestor's YAML reader does not.
func compareInventories(t *testing.T, own, ans *Inventory) {
	t.Helper()
	if !reflect.DeepEqual(own.Hosts(), ans.Hosts()) {
		t.Errorf("hosts: %s %q, %s %q", own.Reader, own.Hosts(), ans.Reader, ans.Hosts())
	}
	for _, h := range ans.Hosts() {
		a, aerr := ans.Host(h)
		o, oerr := own.Host(h)
		switch {
		case aerr != nil || oerr != nil:
			if (aerr == nil) != (oerr == nil) {
				t.Errorf("host %s: %s: %v; %s: %v", h, own.Reader, oerr, ans.Reader, aerr)
			}
			continue
		}
		strip := func(hv HostVars) HostVars {
			var gs []string
			for _, g := range hv.Groups {
				if g != "ungrouped" {
					gs = append(gs, g)
				}
			}
			sort.Strings(gs)
			hv.Groups, hv.Notes = gs, nil
			return hv
		}
		if !reflect.DeepEqual(strip(o), strip(a)) {
			t.Errorf("host %s:\n %-22s %+v\n %-22s %+v", h, own.Reader, strip(o), ans.Reader, strip(a))
		}
	}
}

// When ansible-inventory cannot be used, nestor's own reader reads the
// file and says why; when it fails otherwise, its message is the error.
func TestAnsibleInventoryFailures(t *testing.T) {
	path := filepath.Join("testdata", "inventory", "handed-kubespray-ini", "kubespray-inventory.ini")
	var calls []ansibleCall
	for _, tc := range []struct {
		name    string
		run     probes.Runner
		why     string // nestor's reader read it, because…
		wantErr string
	}{
		{"runner: not found", fakeAnsible(t, nil, "", &exec.Error{Name: "env", Err: exec.ErrNotFound}, &calls), "ansible-inventory is not on PATH", ""},
		{"env: exit 127", fakeAnsible(t, nil, "env: 'ansible-inventory': No such file or directory\n", exitError(t, 127), &calls), "ansible-inventory is not on PATH", ""},
		{"vault", fakeAnsible(t, nil, "ERROR! Attempting to decrypt but no vault secrets found\n", exitError(t, 4), &calls),
			"ansible-inventory cannot read it without a vault password, which nestor never gives (ERROR! Attempting to decrypt but no vault secrets found); vault-encrypted files left out", ""},
		{"parse failure", fakeAnsible(t, nil, "[WARNING]:  * Failed to parse /x/hosts.ini with ini plugin: Adding\ngroup 'a' as child to 'b' creates a recursive dependency loop.\n[WARNING]: Unable to parse /x/hosts.ini as an inventory source\nERROR! No inventory was parsed, please check your configuration and options.\n", exitError(t, 1), &calls),
			"", "ansible-inventory cannot read it (exit 1):\n  [WARNING]:  * Failed to parse /x/hosts.ini with ini plugin: Adding group 'a' as child to 'b' creates a recursive dependency loop.\n  [WARNING]: Unable to parse /x/hosts.ini as an inventory source\n  ERROR! No inventory was parsed"},
		{"not its JSON", fakeAnsible(t, []byte("Traceback (most recent call last):"), "", nil, &calls), "", "ansible-inventory --list did not print its JSON"},
		{"a group that is not an object", fakeAnsible(t, []byte(`{"all": ["a"]}`), "", nil, &calls), "", "ansible-inventory --list: group all:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := LoadInventory(context.Background(), path, InventoryOptions{Run: tc.run})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want it to contain %q and the path", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inv.Reader != ReaderINI || inv.Why != tc.why {
				t.Errorf("reader %q why %q, want %q %q", inv.Reader, inv.Why, ReaderINI, tc.why)
			}
			if hv, err := inv.Host("node1"); err != nil || hv.Port != 2222 {
				t.Errorf("node1: %+v %v", hv, err)
			}
		})
	}
}

// ansible-inventory is bounded in time: a run that does not end is stopped
// and the error says so.
func TestAnsibleInventoryTimeout(t *testing.T) {
	var scratch string
	hang := func(ctx context.Context, _ string, args ...string) ([]byte, []byte, error) {
		for _, a := range args {
			if strings.HasPrefix(a, "ANSIBLE_HOME=") {
				scratch = strings.TrimPrefix(a, "ANSIBLE_HOME=")
			}
		}
		<-ctx.Done()
		return nil, nil, exitError(t, 137)
	}
	start := time.Now()
	_, err := LoadInventory(context.Background(), "hosts.yml", InventoryOptions{Run: hang, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "inventory hosts.yml: ansible-inventory did not finish within 200ms and was stopped") {
		t.Errorf("error: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if _, err := os.Stat(scratch); scratch == "" || !os.IsNotExist(err) {
		t.Errorf("scratch folder %q left behind (%v)", scratch, err)
	}
}

// ansible-inventory's warnings (wrapped at 80 columns) become notes, one
// per warning; an inline vault value is refused as nestor's YAML reader
// refuses it.
func TestAnsibleInventoryWarningsAndVaultValue(t *testing.T) {
	out := []byte(`{"_meta": {"hostvars": {"a": {"ansible_user": {"__ansible_vault": "$ANSIBLE_VAULT;1.1;AES256\n3131\n"}}, "b": {"ansible_port": 22}}},
"all": {"children": ["ungrouped"]}, "ungrouped": {"hosts": ["a", "b"]}}`)
	stderr := "[WARNING]: Skipping unexpected key (host) in group (all), only \"vars\",\n\"children\" and \"hosts\" are valid\n"
	var calls []ansibleCall
	inv, err := LoadInventory(context.Background(), "hosts.yml", InventoryOptions{Run: fakeAnsible(t, out, stderr, nil, &calls)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`ansible-inventory: [WARNING]: Skipping unexpected key (host) in group (all), only "vars", "children" and "hosts" are valid`}
	if !reflect.DeepEqual(inv.Notes, want) {
		t.Errorf("notes %q", inv.Notes)
	}
	_, err = inv.Host("a")
	if err == nil || !strings.Contains(err.Error(), "inventory hosts.yml (as ansible-inventory merged it): ansible_user is vault-encrypted") {
		t.Errorf("vault value: %v", err)
	}
	if hv, err := inv.Host("b"); err != nil || hv.Port != 22 || !reflect.DeepEqual(hv.Groups, []string{"all", "ungrouped"}) {
		t.Errorf("b: %+v %v", hv, err)
	}
}

// requireAnsible skips t when ansible-inventory is not installed, saying how
// to install it; the comparison of both readers needs it.
func requireAnsible(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ansible-inventory"); err != nil {
		t.Skip("ansible-inventory is not on PATH: install Debian's ansible-core (apt-get install ansible-core; .ci/run does) to run Ansible's own reader against nestor's")
	}
	if testing.Short() {
		t.Skip("runs ansible-inventory (a Python start-up per inventory); skipped in -short mode")
	}
}

// realAnsible is the options of a real run: ExecRunner, this process's
// PATH and locale, home as HOME.
func realAnsible(home string) InventoryOptions {
	return InventoryOptions{Run: probes.ExecRunner, Env: os.LookupEnv, Home: home}
}

// The recordings used as the runner's answer are what ansible-inventory
// prints for those files.
func TestAnsibleRecordingsAreCurrent(t *testing.T) {
	requireAnsible(t)
	for rec, file := range recordedLists {
		path := filepath.Join("testdata", "inventory", rec, file)
		var calls []ansibleCall
		var stdout []byte
		run := func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
			out, errOut, err := probes.ExecRunner(ctx, name, args...)
			stdout = out
			return fakeAnsible(t, out, string(errOut), err, &calls)(ctx, name, args...)
		}
		if _, err := LoadInventory(context.Background(), path, InventoryOptions{Run: run, Env: os.LookupEnv}); err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(stdout, &got); err != nil {
			t.Fatalf("%s: %v", rec, err)
		}
		if err := json.Unmarshal(readTestdata(t, "ansible-list", rec+".json"), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("testdata/ansible-list/%s.json is not what ansible-inventory prints now:\n%s", rec, stdout)
		}
	}
}

// The operator's Ansible settings never change the read: an ansible.cfg in
// the current folder, in HOME and named by ANSIBLE_CONFIG (each allowing
// only the ini plugin, which would make a YAML inventory unreadable),
// ANSIBLE_* variables, and group_vars/ in the current folder (which
// ansible-inventory reads as a playbook's unless told otherwise). Nothing
// is written to HOME, and the scratch folder is removed.
func TestAnsibleInventoryIgnoresOperatorSettings(t *testing.T) {
	requireAnsible(t)
	iniOnly := "[inventory]\nenable_plugins = ini\n"
	cwd, home, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, cwd, map[string]string{"ansible.cfg": iniOnly, "group_vars/all.yml": "ansible_user: from-the-current-folder\n"})
	writeFiles(t, home, map[string]string{".ansible.cfg": iniOnly, "elsewhere.cfg": iniOnly})
	if err := os.Chmod(cwd, 0o755); err != nil { // Ansible ignores ./ansible.cfg in a world-writable folder
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join("testdata", "inventory", "handed-k3s-ip-hosts", "k3s-ansible-ip-hosts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	t.Setenv("TMPDIR", tmp)
	o := realAnsible(home)
	o.Env = func(k string) (string, bool) {
		switch k {
		case "ANSIBLE_CONFIG":
			return filepath.Join(home, "elsewhere.cfg"), true
		case "ANSIBLE_INVENTORY_ENABLED":
			return "ini", true
		}
		return os.LookupEnv(k)
	}
	before := listTree(t, home)
	inv, err := LoadInventory(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Reader != ReaderAnsible {
		t.Fatalf("read by %s (%s)", inv.Reader, inv.Why)
	}
	hv, _, err := inv.Find("server1", "192.0.2.51")
	if err != nil || hv.User != "example-admin" || hv.Port != 2201 {
		t.Errorf("server1: %+v %v", hv, err)
	}
	if after := listTree(t, home); !reflect.DeepEqual(before, after) {
		t.Errorf("HOME changed: %q → %q", before, after)
	}
	if left := listTree(t, tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %q", left)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listTree lists every path under dir.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Ansible's wrapping at 79 columns is undone: at blanks, inside a long word,
// after a hyphen (outputs of ansible-inventory 2.14 on a non-terminal).
func TestAnsibleMessages(t *testing.T) {
	stderr := "[WARNING]: Skipping unexpected key (host) in group (all), only \"vars\",\n\"children\" and \"hosts\" are valid\n" +
		"[WARNING]: Unable to parse /tmp/TestAnsibleInventoryIgnoresOperatorSettings6126\n97652/001/hosts.yml as an inventory source\n" +
		"[WARNING]: Unable to parse /srv/inventories/a-rather-long-folder-name-for-wrapping-\ntests/broken-inventory-file.yml as an inventory source\n" +
		"ERROR! No inventory was parsed, please check your configuration and options.\n"
	want := []string{
		`[WARNING]: Skipping unexpected key (host) in group (all), only "vars", "children" and "hosts" are valid`,
		"[WARNING]: Unable to parse /tmp/TestAnsibleInventoryIgnoresOperatorSettings612697652/001/hosts.yml as an inventory source",
		"[WARNING]: Unable to parse /srv/inventories/a-rather-long-folder-name-for-wrapping-tests/broken-inventory-file.yml as an inventory source",
		"ERROR! No inventory was parsed, please check your configuration and options.",
	}
	if got := ansibleMessages([]byte(stderr)); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
