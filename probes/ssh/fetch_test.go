package ssh

import (
	"nestor.dev/nestor/probes"

	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -o StrictModes=yes\t-v ", []string{"-o", "StrictModes=yes", "-v"}},
		{`-o ProxyCommand="ssh -W %h:%p -q user@bastion"`, []string{"-o", "ProxyCommand=ssh -W %h:%p -q user@bastion"}},
		{`-o 'UserKnownHostsFile=/tmp/my known'`, []string{"-o", "UserKnownHostsFile=/tmp/my known"}},
		{`a\ b "c\"d" 'e\f' "g\h"`, []string{"a b", `c"d`, `e\f`, `g\h`}},
		{`x""y ''`, []string{"xy", ""}},
	}
	for _, tc := range tests {
		got, err := SplitArgs(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`-o "open`, `'open`, `trailing\`} {
		if _, err := SplitArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestSSHArgs(t *testing.T) {
	tests := []struct {
		name string
		o    FetchOptions
		want string
	}{
		{"root, batch", FetchOptions{Host: "10.0.0.1", User: "root"},
			"-o BatchMode=yes -o ConnectTimeout=10 -- root@10.0.0.1 cat -- '/etc/kubernetes/admin.conf'"},
		{"non-root gets sudo -n, key, port, args in order", FetchOptions{
			Host: "10.0.0.1", User: "ops", Port: 2222, IdentityFile: "/k/id", Interactive: true,
			CommonArgs: `-o ProxyJump=b -o "UserKnownHostsFile=/t/k h"`, ExtraArgs: "-v", RemotePath: "/etc/rancher/k3s/k3s.yaml",
		}, "-i /k/id -p 2222 -o ProxyJump=b -o UserKnownHostsFile=/t/k h -v -- ops@10.0.0.1 sudo -n cat -- '/etc/rancher/k3s/k3s.yaml'"},
		{"unknown user: sudo", FetchOptions{Host: "h"}, "-o BatchMode=yes -o ConnectTimeout=10 -- h sudo -n cat -- '/etc/kubernetes/admin.conf'"},
		{"root with become", FetchOptions{Host: "h", User: "root", Become: true, Interactive: true, RemotePath: "/tmp/it's"},
			`-- root@h sudo -n cat -- '/tmp/it'\''s'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SSHArgs(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
			for _, a := range got {
				l := strings.ToLower(a)
				if strings.Contains(l, "stricthostkeychecking") || strings.Contains(l, "/dev/null") {
					t.Errorf("host-key checking weakened: %q", a)
				}
			}
		})
	}
	for _, o := range []FetchOptions{{}, {Host: "-oProxyCommand=x"}, {Host: "h", User: "-x"}, {Host: "h", Port: 70000}, {Host: "h", CommonArgs: `"x`}} {
		if _, err := SSHArgs(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// kubeconfigBytes returns a kubeconfig with embedded (fake) credentials.
func kubeconfigBytes(t *testing.T, server string) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubernetes"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: []byte("CA-DATA")}
	cfg.AuthInfos["kubernetes-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte("CERT"), ClientKeyData: []byte("SECRET-KEY-MATERIAL")}
	cfg.Contexts["kubernetes-admin@kubernetes"] = &clientcmdapi.Context{Cluster: "kubernetes", AuthInfo: "kubernetes-admin"}
	cfg.CurrentContext = "kubernetes-admin@kubernetes"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckAdminConf(t *testing.T) {
	plain := kubeconfigBytes(t, "https://10.67.2.11:6443")
	ac, err := CheckAdminConf(plain, "10.67.2.11")
	if err != nil {
		t.Fatal(err)
	}
	if string(ac.Data) != string(plain) || ac.RewrittenFrom != "" || ac.Server != "https://10.67.2.11:6443" ||
		ac.Context != "kubernetes-admin@kubernetes" || ac.Cluster != "kubernetes" || ac.User != "kubernetes-admin" {
		t.Errorf("plain: %+v", ac)
	}

	for _, tc := range []struct{ server, addr, want string }{
		{"https://127.0.0.1:6443", "10.0.0.5", "https://10.0.0.5:6443"},
		{"https://localhost:6443", "127.0.0.2", "https://127.0.0.2:6443"},
		{"https://127.9.9.9", "node1.lab", "https://node1.lab"},
		{"https://[::1]:6443/", "fd00::5", "https://[fd00::5]:6443/"},
	} {
		ac, err := CheckAdminConf(kubeconfigBytes(t, tc.server), tc.addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.server, err)
		}
		if ac.Server != tc.want || ac.RewrittenFrom != tc.server {
			t.Errorf("%s → %s (from %s), want %s", tc.server, ac.Server, ac.RewrittenFrom, tc.want)
		}
		s, err := SummarizeKubeconfig(ac.Data)
		if err != nil || s.Server != tc.want {
			t.Errorf("rewritten data has server %q (%v)", s.Server, err)
		}
	}

	same := kubeconfigBytes(t, "https://127.0.0.1:6443")
	if ac, err := CheckAdminConf(same, "127.0.0.1"); err != nil || ac.RewrittenFrom != "" || string(ac.Data) != string(same) {
		t.Errorf("a node whose address is that loopback address: %+v %v", ac, err)
	}
	if _, err := CheckAdminConf(kubeconfigBytes(t, "https://127.0.0.1:6443"), ""); err == nil || !strings.Contains(err.Error(), "set address:") {
		t.Errorf("loopback without address: %v", err)
	}
	noCtx := strings.Replace(string(plain), "current-context: kubernetes-admin@kubernetes", `current-context: ""`, 1)
	withFile := strings.Replace(string(plain), "client-key-data: "+encodeB64("SECRET-KEY-MATERIAL"), "client-key: /etc/kubernetes/pki/admin.key", 1)
	for name, tc := range map[string]struct{ data, want string }{
		"empty":      {"\n", "empty"},
		"not kube":   {"hello: [", "not a kubeconfig"},
		"no context": {noCtx, "no current-context"},
		"file refs":  {withFile, "client-key of user kubernetes-admin"},
	} {
		_, err := CheckAdminConf([]byte(tc.data), "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: error leaks the data: %v", name, err)
		}
	}
}

func encodeB64(s string) string {
	cfg := clientcmdapi.NewConfig()
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientKeyData: []byte(s)}
	b, _ := clientcmd.Write(*cfg)
	_, after, _ := strings.Cut(string(b), "client-key-data: ")
	v, _, _ := strings.Cut(after, "\n")
	return v
}

func TestFetchAdminConf(t *testing.T) {
	data := kubeconfigBytes(t, "https://localhost:6443")
	var gotArgs []string
	ok := func(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
		if name != "ssh" {
			t.Errorf("ran %s, want ssh", name)
		}
		gotArgs = args
		return data, nil, nil
	}
	ac, err := FetchAdminConf(context.Background(), ok, FetchOptions{Node: "cp1", Host: "bastion-alias", Address: "10.0.0.7", User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	if ac.Server != "https://10.0.0.7:6443" || ac.RewrittenFrom != "https://localhost:6443" {
		t.Errorf("%+v", ac)
	}
	if strings.Join(gotArgs, " ") != "-o BatchMode=yes -o ConnectTimeout=10 -- root@bastion-alias cat -- '/etc/kubernetes/admin.conf'" {
		t.Errorf("args %q", gotArgs)
	}

	// A real failed process, so the error is a real *exec.ExitError.
	failing := func(script string) probes.Runner {
		return func(ctx context.Context, _ string, _ ...string) ([]byte, []byte, error) {
			cmd := exec.CommandContext(ctx, "sh", "-c", script)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			return []byte(out.String()), []byte(errb.String()), err
		}
	}
	_, err = FetchAdminConf(context.Background(), failing("echo 'Host key verification failed.' >&2; exit 255"), FetchOptions{Node: "cp1", Host: "h", User: "root"})
	var fe *FetchError
	if !errors.As(err, &fe) || fe.ExitCode != 255 || fe.Stderr != "Host key verification failed." {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "(exit 255):\n  Host key verification failed.") || !strings.Contains(err.Error(), "never disables host-key checking") {
		t.Errorf("message: %v", err)
	}
	_, err = FetchAdminConf(context.Background(), failing("echo 'sudo: a password is required' >&2; exit 1"), FetchOptions{Node: "cp1", Host: "h", User: "ops"})
	if !errors.As(err, &fe) || fe.ExitCode != 1 || !strings.Contains(err.Error(), "sudo -n") {
		t.Errorf("sudo: %v", err)
	}
	_, err = FetchAdminConf(context.Background(), failing("echo 'SECRET-ish garbage'"), FetchOptions{Node: "cp1", Host: "h", User: "root", RemotePath: "/x"})
	if err == nil || !strings.HasPrefix(err.Error(), "cp1:/x: not a kubeconfig") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("garbage: %v", err)
	}
	notFound := func(context.Context, string, ...string) ([]byte, []byte, error) {
		return nil, nil, &exec.Error{Name: "ssh", Err: exec.ErrNotFound}
	}
	_, err = FetchAdminConf(context.Background(), notFound, FetchOptions{Node: "cp1", Host: "h"})
	if err == nil || !strings.Contains(err.Error(), "ssh is not installed") {
		t.Errorf("not found: %v", err)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "api.localhost": true, "127.0.0.1": true, "127.200.1.1": true,
		"::1": true, "10.0.0.1": false, "localhost.example": false, "::2": false, "128.0.0.1": false,
	} {
		if got := IsLoopbackHost(h); got != want {
			t.Errorf("%s: %v", h, got)
		}
	}
}

// A hint is given for the cause ssh names: a missing key file here is not a
// missing kubeconfig on the node (ssh prints "No such file" for both).
func TestFetchHint(t *testing.T) {
	o := FetchOptions{IdentityFile: "/home/op/.ssh/id_lab", RemotePath: "/etc/rancher/k3s/k3s.yaml"}
	for stderr, want := range map[string]string{
		"Warning: Identity file /home/op/.ssh/id_lab not accessible: No such file or directory.\nConnection timed out during banner exchange": "the key /home/op/.ssh/id_lab does not exist here",
		"cat: /etc/rancher/k3s/k3s.yaml: No such file or directory":                                                                           "/etc/rancher/k3s/k3s.yaml does not exist on the node",
		"Connection timed out during banner exchange":                                                                                         "",
	} {
		got := fetchHint(stderr, o)
		if (want == "" && got != "") || !strings.Contains(got, want) {
			t.Errorf("%q: hint %q, want %q", stderr, got, want)
		}
	}
}
