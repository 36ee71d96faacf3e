package lima

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"nestor.dev/nestor/topology"
)

// limaRecording reads a recorded `limactl list --json` output of
// tests/testdata/limactl.
func limaRecording(t *testing.T, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "tests", "testdata", "limactl", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeLimaListErrorsAndStrayEntries: Broken instances keep limactl's
// errors, and entries that are not instances (no status, no dir: a stray
// file in the Lima folder) are kept apart, never as VMs — in every output
// form limactl has printed, with errors as strings (today) or as the Go
// error values older releases marshalled.
func TestDecodeLimaListErrorsAndStrayEntries(t *testing.T) {
	tests := []struct {
		file   string
		vms    []topology.VM
		notVMs []topology.NotVM
	}{
		{
			file: "list-stray-files.json", // one object per line, lima 0.x field names
			vms:  []topology.VM{{Name: "lima-node1", Status: "Running", Dir: "/Users/example-user/.lima/lima-node1", CPUs: 4, Memory: 4 << 30, Disk: 100 << 30}},
			notVMs: []topology.NotVM{
				{Name: "docker.yaml", Errors: []string{"open /Users/example-user/.lima/docker.yaml/lima.yaml: not a directory"}},
				{Name: "podman.yaml", Errors: []string{"open /Users/example-user/.lima/podman.yaml/lima.yaml: not a directory"}},
			},
		},
		{
			file: "list-broken-ndjson.json", // lima 1.x
			vms: []topology.VM{
				{Name: "k8s-cp", Status: "Running", Dir: "/Users/example-user/.lima/k8s-cp", VMType: "vz", CPUs: 4, Memory: 4 << 30, Disk: 100 << 30},
				{Name: "k8s-worker", Status: "Stopped", Dir: "/Users/example-user/.lima/k8s-worker", VMType: "vz", CPUs: 2, Memory: 4 << 30, Disk: 20 << 30},
				{Name: "cluster", Status: "Broken", Dir: "/Users/example-user/.lima/cluster", VMType: "vz", CPUs: 2, Memory: 3 << 30, Disk: 20 << 30,
					Errors: []string{`failed to connect to "/Users/example-user/.lima/cluster/ha.sock": stat /Users/example-user/.lima/cluster/ha.sock: no such file or directory`}},
				{Name: "default", Status: "Broken", Dir: "/Users/example-user/.lima/default", VMType: "qemu", CPUs: 2, Memory: 4 << 30, Disk: 100 << 30,
					Errors: []string{"host agent is running but driver is not"}},
			},
		},
		{
			file: "bench-broken-old-errors-pretty.json", // lima 0.x: pretty, errors as Go values
			vms: []topology.VM{
				{Name: "lima-node1", Status: "Running", Dir: "/home/op/.lima/lima-node1"},
				{Name: "lima-node2", Status: "Broken", Dir: "/home/op/.lima/lima-node2", Errors: []string{"an error without text (limactl printed {})"}},
			},
			notVMs: []topology.NotVM{{Name: "docker.yaml", Errors: []string{"open /home/op/.lima/docker.yaml/lima.yaml: failed (limactl gave no error text)"}}},
		},
		{
			file: "bench-node2-stray-array.json", // the JSON array form; a stray file named like a node
			vms: []topology.VM{{Name: "lima-node1", Status: "Broken", Dir: "/home/op/.lima/lima-node1", VMType: "qemu", CPUs: 2, Memory: 4 << 30, Disk: 30 << 30,
				Errors: []string{"qemu is running but host agent is not"}}},
			notVMs: []topology.NotVM{
				{Name: "lima-node2", Errors: []string{"open /home/op/.lima/lima-node2/lima.yaml: not a directory"}},
				{Name: "notes.txt", Errors: []string{"open /home/op/.lima/notes.txt/lima.yaml: not a directory"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			l, err := decodeLimaList(limaRecording(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l.vms, tc.vms) {
				t.Errorf("vms:\n got %+v\nwant %+v", l.vms, tc.vms)
			}
			if !reflect.DeepEqual(l.notVMs, tc.notVMs) {
				t.Errorf("not VMs:\n got %+v\nwant %+v", l.notVMs, tc.notVMs)
			}
			for _, vm := range l.vms {
				if vm.Status == "" {
					t.Errorf("a VM with a blank status: %+v", vm)
				}
			}
		})
	}

	// An instance with a folder but no status stays a VM (its status is
	// unknown to the plan), and control characters in errors are removed.
	l, err := decodeLimaList([]byte(`{"name":"odd","status":"","dir":"/h/.lima/odd","errors":["bad \u001b[2Jyaml", 42]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []topology.VM{{Name: "odd", Dir: "/h/.lima/odd", Errors: []string{"bad [2Jyaml", "an error without text (limactl printed 42)"}}}
	if !reflect.DeepEqual(l.vms, want) || len(l.notVMs) != 0 {
		t.Errorf("got %+v / %+v, want %+v", l.vms, l.notVMs, want)
	}
}

// TestReadVMsIgnoresWarningsOfASuccessfulList: limactl warns on stderr
// about each entry with errors and exits 0; the JSON carries the errors.
func TestReadVMsIgnoresWarningsOfASuccessfulList(t *testing.T) {
	f := &fakeLimactl{stdout: string(limaRecording(t, "list-stray-files.json")), stderr: string(limaRecording(t, "list-stray-files.stderr"))}
	vms, notVMs := readVMs(context.Background(), f.run)
	if !vms.Known || len(vms.Value) != 1 || vms.Value[0].Name != "lima-node1" {
		t.Errorf("vms = %+v, want lima-node1 only", vms)
	}
	if len(notVMs) != 2 || notVMs[0].Name != "docker.yaml" || notVMs[1].Name != "podman.yaml" {
		t.Errorf("not VMs = %+v", notVMs)
	}
	// limactl failing: nothing is known, no entry is reported.
	f = &fakeLimactl{stderr: "fatal", err: os.ErrPermission}
	if vms, notVMs := readVMs(context.Background(), f.run); vms.Known || notVMs != nil {
		t.Errorf("failing limactl: %+v %+v", vms, notVMs)
	}
}
