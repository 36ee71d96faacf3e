package lima

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/probes/internal/probetest"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// Output of `limactl list --json` as lima prints it today (lima-vm/lima
// cmd/limactl/list.go: one json.Marshal of store.Instance per line; the PIDs
// and sshLocalPort omitted when stopped).
const limaJSONLines = `{"name":"lima-node1","hostname":"lima-lima-node1","status":"Running","dir":"/Users/op/.lima/lima-node1","vmType":"vz","arch":"aarch64","cpuType":"","cpus":4,"memory":4294967296,"disk":107374182400,"network":[{"lima":"shared","macAddress":"52:55:55:aa:bb:01","interface":"lima0"}],"sshLocalPort":60022,"sshConfigFile":"/Users/op/.lima/lima-node1/ssh.config","hostAgentPID":4242,"driverPID":4242,"config":{"vmType":"vz","cpus":4,"memory":"4GiB","disk":"100GiB"},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}
{"name":"lima-node2","hostname":"lima-lima-node2","status":"Stopped","dir":"/Users/op/.lima/lima-node2","vmType":"vz","arch":"aarch64","cpuType":"","cpus":2,"memory":2147483648,"disk":53687091200,"sshConfigFile":"/Users/op/.lima/lima-node2/ssh.config","config":{"vmType":"vz"},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}
`

// Older releases printed each instance indented, back to back.
const limaJSONPretty = `{
  "name": "lima-node1",
  "status": "Running",
  "dir": "/home/op/.lima/lima-node1",
  "vmType": "qemu",
  "arch": "x86_64",
  "cpuType": "host",
  "cpus": 4,
  "memory": 4294967296,
  "disk": 107374182400,
  "sshLocalPort": 60022,
  "hostAgentPID": 4242,
  "driverPID": 4243
}
{
  "name": "lima-node2",
  "status": "Stopped",
  "dir": "/home/op/.lima/lima-node2",
  "vmType": "qemu",
  "arch": "x86_64",
  "cpuType": "host",
  "cpus": 2,
  "memory": 2147483648,
  "disk": 53687091200
}
`

// One release printed a JSON array.
const limaJSONArray = `[{"name":"lima-node1","status":"Running","dir":"/home/op/.lima/lima-node1","vmType":"qemu","arch":"x86_64","cpus":4,"memory":4294967296,"disk":107374182400,"hostAgentPID":4242,"driverPID":4243},
 {"name":"lima-node2","status":"Stopped","dir":"/home/op/.lima/lima-node2","vmType":"qemu","arch":"x86_64","cpus":2,"memory":2147483648,"disk":53687091200}]
`

func TestDecodeLimaList(t *testing.T) {
	for _, tc := range []struct {
		name, out, dir, vmType string
	}{
		{"JSON lines", limaJSONLines, "/Users/op/.lima", "vz"},
		{"pretty objects back to back", limaJSONPretty, "/home/op/.lima", "qemu"},
		{"JSON array", limaJSONArray, "/home/op/.lima", "qemu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := decodeLimaList([]byte(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			vms := l.vms
			if len(l.notVMs) != 0 {
				t.Errorf("not VMs: %+v", l.notVMs)
			}
			want := []topology.VM{
				{Name: "lima-node1", Status: topology.VMRunning, Dir: tc.dir + "/lima-node1", VMType: tc.vmType, CPUs: 4, Memory: 4 << 30, Disk: 100 << 30},
				{Name: "lima-node2", Status: topology.VMStopped, Dir: tc.dir + "/lima-node2", VMType: tc.vmType, CPUs: 2, Memory: 2 << 30, Disk: 50 << 30},
			}
			if !reflect.DeepEqual(vms, want) {
				t.Errorf("got  %+v\nwant %+v", vms, want)
			}
		})
	}
	for _, empty := range []string{"", "\n", "  \n\t"} {
		l, err := decodeLimaList([]byte(empty))
		if err != nil || l.vms == nil || len(l.vms) != 0 || l.notVMs != nil {
			t.Errorf("decode(%q) = %+v, %v; want an empty, non-nil list", empty, l, err)
		}
	}
	for _, bad := range []string{"time=... level=fatal msg=oops", `{"name":"a"} trailing`, `[{"name":"a"}`, `[{"name":"a"}] {}`, `{"status":"Running"}`} {
		if vms, err := decodeLimaList([]byte(bad)); err == nil {
			t.Errorf("decode(%q) = %v, want an error", bad, vms)
		}
	}
}

// fakeLimactl answers like limactl would and records the calls.
type fakeLimactl struct {
	stdout, stderr string
	err            error
	calls          []string
}

func (f *fakeLimactl) run(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	return []byte(f.stdout), []byte(f.stderr), f.err
}

func TestReadVMs(t *testing.T) {
	ctx := context.Background()

	ok := &fakeLimactl{stdout: limaJSONLines}
	vms, _ := readVMs(ctx, ok.run)
	if !vms.Known || len(vms.Value) != 2 || vms.Value[1].Status != topology.VMStopped {
		t.Errorf("two instances: %+v", vms)
	}
	if !reflect.DeepEqual(ok.calls, []string{"limactl list --json"}) {
		t.Errorf("calls = %q", ok.calls)
	}

	none := &fakeLimactl{stderr: `time="2026-11-29T10:00:00Z" level=warning msg="No instance found. Run ` + "`limactl create`" + ` to create an instance."` + "\n"}
	vms, _ = readVMs(ctx, none.run)
	if !vms.Known || vms.Value == nil || len(vms.Value) != 0 {
		t.Errorf("no instance: %+v, want known and empty", vms)
	}

	missing := &fakeLimactl{err: &exec.Error{Name: "limactl", Err: exec.ErrNotFound}}
	vms, _ = readVMs(ctx, missing.run)
	if vms.Known || !strings.Contains(vms.Reason, "limactl is not installed") || vms.Code != topology.ReasonNotInstalled {
		t.Errorf("limactl missing: %+v", vms)
	}

	failing := &fakeLimactl{stderr: "time=... level=fatal msg=\"open /Users/op/.lima/_config: permission denied\"\n", err: errors.New("exit status 1")}
	vms, _ = readVMs(ctx, failing.run)
	if vms.Known || !strings.Contains(vms.Reason, "exit status 1") || !strings.Contains(vms.Reason, "permission denied") || vms.Code != topology.ReasonFailed {
		t.Errorf("limactl failing: %+v", vms)
	}

	garbled := &fakeLimactl{stdout: "NAME STATUS\nlima-node1 Running\n"}
	vms, _ = readVMs(ctx, garbled.run)
	if vms.Known || !strings.Contains(vms.Reason, "cannot read") || vms.Code != topology.ReasonAnswerRefused {
		t.Errorf("not JSON: %+v", vms)
	}

	// limactl stopped by the read's deadline, or by the operator.
	killed := &fakeLimactl{err: errors.New("signal: killed")}
	late, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	vms, _ = readVMs(late, killed.run)
	if want := "limactl list --json did not finish: timed out"; vms.Known || vms.Reason != want || vms.Code != topology.ReasonTimedOut {
		t.Errorf("deadline: %+v, want unknown %q, %s", vms, want, topology.ReasonTimedOut)
	}
	stopped, stop := context.WithCancel(ctx)
	stop()
	vms, _ = readVMs(stopped, killed.run)
	if want := "limactl list --json did not finish: interrupted (nestor was stopped before this read finished)"; vms.Known || vms.Reason != want || vms.Code != topology.ReasonInterrupted {
		t.Errorf("canceled: %+v, want unknown %q, %s", vms, want, topology.ReasonInterrupted)
	}
}

func TestReadVMsRealProcess(t *testing.T) {
	// probes.ExecRunner with a program that is not on PATH gives exec.ErrNotFound.
	_, _, err := probes.ExecRunner(context.Background(), "limactl-does-not-exist-"+fmt.Sprint(t.Name()))
	if !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want exec.ErrNotFound", err)
	}
	out, _, err := probes.ExecRunner(context.Background(), "sh", "-c", "printf '%s' \"$0\"", limaJSONLines)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := decodeLimaList(out); err != nil || len(l.vms) != 2 {
		t.Errorf("through sh: %+v, %v", l, err)
	}
}

func TestProbeLimaWithoutBenchKubeconfig(t *testing.T) {
	root := t.TempDir()
	topo := &topology.Topology{Path: filepath.Join(root, "stacks", "bench.yaml"), Name: "bench", TargetKind: topology.TargetLima,
		Nodes:  []topology.Node{{Name: "lima-node1", Role: topology.RoleControlPlane}, {Name: "lima-node2", Role: topology.RoleWorker}},
		Layers: []topology.LayerRef{{Name: "flannel"}, {Name: "local-path"}}}
	f := &fakeLimactl{stdout: limaJSONLines}
	obs := readLimaStack(t, f.run, topo, "/home/op", probes.LoadOptions{UserAgent: "nestor/test"})

	want := "no bench kubeconfig at " + filepath.Join(root, ".work", "bench", "kubeconfig") + " (the bench cluster has not been bootstrapped, or lima.kubeconfig: names another file)"
	if obs.VMs == nil || !obs.VMs.Known || len(obs.VMs.Value) != 2 {
		t.Errorf("VMs = %+v", obs.VMs)
	}
	if obs.Nodes.Known || obs.Nodes.Reason != want || obs.Nodes.Code != topology.ReasonNoTarget {
		t.Errorf("Nodes = %+v, want unknown %q, %s (never zero nodes)", obs.Nodes, want, topology.ReasonNoTarget)
	}
	if obs.ServerVersion.Known || obs.Storage.Known {
		t.Errorf("version %+v storage %+v, want unknown", obs.ServerVersion, obs.Storage)
	}
	if len(obs.Layers) != 2 {
		t.Fatalf("layers = %+v", obs.Layers)
	}
	for _, l := range obs.Layers {
		if l.Health != topology.Unknown || l.Reason != want || !l.Declared || l.Code != topology.ReasonNoTarget {
			t.Errorf("layer %+v, want unknown with %q", l, want)
		}
	}
}

func TestProbeLimaBrokenBenchKubeconfig(t *testing.T) {
	root := t.TempDir()
	topo := &topology.Topology{Path: filepath.Join(root, "stacks", "bench.yaml"), Name: "bench", TargetKind: topology.TargetLima,
		Layers: []topology.LayerRef{{Name: "local-path"}}}
	probetest.WriteFile(t, topo.BenchKubeconfig(""), "apiVersion: v1\nkind: Config\n")
	f := &fakeLimactl{err: &exec.Error{Name: "limactl", Err: exec.ErrNotFound}}
	obs := readLimaStack(t, f.run, topo, "", probes.LoadOptions{UserAgent: "nestor/test"})
	if obs.VMs == nil || obs.VMs.Known {
		t.Errorf("VMs = %+v, want unknown", obs.VMs)
	}
	if obs.Nodes.Known || !strings.Contains(obs.Nodes.Reason, "defines no context") {
		t.Errorf("Nodes = %+v", obs.Nodes)
	}
}

// TestProbeLimaWithOptions: the bench read honours the caller's timeout and
// context (ProbeLima capped every read at DefaultTimeout and always used
// the current-context).
func TestProbeLimaWithOptions(t *testing.T) {
	blackhole, err := net.Listen("tcp", "127.0.0.1:0") // accepts no TLS handshake
	if err != nil {
		t.Fatal(err)
	}
	defer blackhole.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	root := t.TempDir()
	topo := &topology.Topology{Path: filepath.Join(root, "stacks", "bench.yaml"), Name: "bench", TargetKind: topology.TargetLima,
		Layers: []topology.LayerRef{{Name: "local-path"}}}
	probetest.WriteFile(t, topo.BenchKubeconfig(""), probetest.KubeconfigText("hang",
		map[string]string{"hole": "https://" + blackhole.Addr().String(), "gone": "https://" + closedAddr},
		map[string][2]string{"hang": {"hole", "u"}, "refused": {"gone", "u"}}))
	f := &fakeLimactl{stdout: limaJSONLines}

	start := time.Now()
	obs := readLimaStack(t, f.run, topo, "", probes.LoadOptions{UserAgent: "nestor/test", Kube: probes.KubeOptions{Timeout: 700 * time.Millisecond}})
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("a 700ms timeout took %v", d)
	}
	if obs.Nodes.Known || obs.Nodes.Reason != "timed out after 700ms" || obs.Nodes.Code != topology.ReasonTimedOut {
		t.Errorf("nodes = %+v, want unknown timed out after 700ms", obs.Nodes)
	}
	if obs.VMs == nil || !obs.VMs.Known {
		t.Errorf("VMs = %+v", obs.VMs)
	}

	obs = readLimaStack(t, f.run, topo, "", probes.LoadOptions{UserAgent: "nestor/test", Context: "refused"})
	if want := "unreachable: dial tcp " + closedAddr + ": connect: connection refused"; obs.Nodes.Known || obs.Nodes.Reason != want || obs.Nodes.Code != topology.ReasonUnreachable {
		t.Errorf("--context refused: nodes = %+v, want unknown %q", obs.Nodes, want)
	}
	obs = readLimaStack(t, f.run, topo, "", probes.LoadOptions{Context: "nope"})
	if obs.Nodes.Known || !strings.Contains(obs.Nodes.Reason, `context "nope" (--context) is not defined`) {
		t.Errorf("unknown context: nodes = %+v", obs.Nodes)
	}
}

func TestReadVMsSanitizesStderr(t *testing.T) {
	f := &fakeLimactl{stderr: "fatal: \x1b[2Jdisk \x1b]0;title\x07full\r\n", err: errors.New("exit status 1")}
	vms, _ := readVMs(context.Background(), f.run)
	if want := "limactl list --json failed: exit status 1: fatal: [2Jdisk ]0;titlefull"; vms.Known || vms.Reason != want {
		t.Errorf("reason %q, want %q", vms.Reason, want)
	}
}

// readLimaStack opens a lima stack through the target pipeline and reads
// everything (VMs and the bench cluster), as preview does.
func readLimaStack(t *testing.T, run probes.Runner, topo *topology.Topology, home string, lo probes.LoadOptions) *topology.Observed {
	t.Helper()
	ctx := context.Background()
	op, err := probes.Open(ctx, Kind{}, topo, probes.OpenOptions{Home: home, Run: run, UserAgent: lo.UserAgent, Context: lo.Context, Timeout: lo.Kube.Timeout})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	obs, _, err := op.Read(ctx, probes.ReadAll)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return obs
}

// TestDecodeLimaListUnprintableTexts: an instance whose name or status is
// made only of unprintable characters keeps them, escaped: it is neither
// nameless nor without a status, and nothing unprintable is kept raw.
func TestDecodeLimaListUnprintableTexts(t *testing.T) {
	l, err := decodeLimaList([]byte(`{"name":"\u007f"}` + "\n" + `{"name":"\u001b[2J","status":"\u0007","dir":"/l/\u0000"}` + "\n" + `{"name":"vm\u202e","status":"Running"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.notVMs) != 1 || l.notVMs[0].Name != `\x7f` {
		t.Errorf("entries that are not VMs = %+v, want one named \\x7f", l.notVMs)
	}
	if len(l.vms) != 2 || l.vms[0].Name != `\x1b[2J` || l.vms[0].Status != `\a` || l.vms[0].Dir != `/l/\x00` || l.vms[1].Name != `vm\u202e` {
		t.Errorf("VMs = %+v", l.vms)
	}
}

// The bench kubeconfig is a lima stack's only one: KUBECONFIG is ignored,
// lima.kubeconfig is its path when set, --kubeconfig is refused.
func TestResolveLima(t *testing.T) {
	home := "/home/op"
	bench := &topology.Topology{Path: "/srv/stacks/bench.yaml", Name: "bench", TargetKind: topology.TargetLima,
		Kubeconfig: "/should/never/be/used"}
	env := probetest.EnvOf(map[string]string{"KUBECONFIG": "/prod/admin.conf"})

	got, err := Kind{}.Resolve(probes.ResolveOptions{Env: env, Home: home, Topology: bench})
	if err != nil {
		t.Fatal(err)
	}
	want := probes.Kubeconfig{Paths: []string{"/srv/.work/bench/kubeconfig"}, Source: probes.SourceBench, Detail: "the bench kubeconfig (default for stack bench)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lima, KUBECONFIG set: got %+v, want %+v (KUBECONFIG must be ignored)", got, want)
	}

	explicit := &topology.Topology{Path: "/srv/stacks/bench.yaml", Name: "bench", TargetKind: topology.TargetLima,
		Lima: &topology.Lima{Kubeconfig: "~/bench.kubeconfig"}}
	got, err = Kind{}.Resolve(probes.ResolveOptions{Env: env, Home: home, Topology: explicit})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Paths, []string{"/home/op/bench.kubeconfig"}) || got.Source != probes.SourceBench ||
		got.Detail != "lima.kubeconfig in /srv/stacks/bench.yaml" {
		t.Errorf("lima.kubeconfig: got %+v", got)
	}

	_, err = Kind{}.Resolve(probes.ResolveOptions{Flag: "/prod/admin.conf", Env: env, Home: home, Topology: bench})
	if err == nil {
		t.Fatal("--kubeconfig on a lima stack: no error")
	}
	for _, w := range []string{"--kubeconfig", "lima stack bench", "/srv/.work/bench/kubeconfig"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
