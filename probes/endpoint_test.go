package probes

import (
	"errors"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

func TestNormalizeEndpoint(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"https://10.67.2.11:6443", "https://10.67.2.11:6443"},
		{"HTTPS://10.67.2.11:6443/", "https://10.67.2.11:6443"},
		{"https://API.Dirqual.Example", "https://api.dirqual.example:443"},
		{"https://api.dirqual.example:443/", "https://api.dirqual.example:443"},
		{"http://127.0.0.1", "http://127.0.0.1:80"},
		{"https://[::1]:6443", "https://[::1]:6443"},
		{"https://[FE80::1]", "https://[fe80::1]:443"},
		{"https://lb.example:8443/k8s/clusters/c-1/", "https://lb.example:8443/k8s/clusters/c-1"},
		{"  https://10.0.0.1:6443  ", "https://10.0.0.1:6443"},
		{"https://10.0.0.1:06443", "https://10.0.0.1:6443"},
		// IPv6 hosts are addresses: every spelling of one address is one
		// endpoint (RFC 5952 canonical form).
		{"https://[2001:db8::10]:6443", "https://[2001:db8::10]:6443"},
		{"https://[2001:db8:0:0:0:0:0:10]:6443", "https://[2001:db8::10]:6443"},
		{"https://[2001:0DB8:0000:0000:0000:0000:0000:0010]:6443/", "https://[2001:db8::10]:6443"},
		{"HTTPS://[2001:DB8::10]:6443", "https://[2001:db8::10]:6443"},
		{"https://[2001:db8:0:0:1:0:0:1]", "https://[2001:db8::1:0:0:1]:443"},
		{"https://[0:0:0:0:0:0:0:1]:6443", "https://[::1]:6443"},
		{"https://[fe80::1%25eth0]:6443", "https://[fe80::1%25eth0]:6443"},
		// IPv4-mapped IPv6 is the IPv4 address (Go dials it over IPv4).
		{"https://[::ffff:192.0.2.1]:6443", "https://192.0.2.1:6443"},
		{"https://[::FFFF:c000:0201]:6443", "https://192.0.2.1:6443"},
		{"https://[0:0:0:0:0:ffff:192.0.2.1]:6443", "https://192.0.2.1:6443"},
	}
	for _, tc := range tests {
		got, err := topology.NormalizeEndpoint(tc.in)
		if err != nil {
			t.Errorf("topology.NormalizeEndpoint(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("topology.NormalizeEndpoint(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// A fixed point: normalising the result changes nothing.
		if again, err := topology.NormalizeEndpoint(got); err != nil || again != got {
			t.Errorf("topology.NormalizeEndpoint(%q) = %q, but topology.NormalizeEndpoint(%q) = %q, %v", tc.in, got, got, again, err)
		}
	}
}

func TestNormalizeEndpointErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"10.67.2.11:6443", "not a URL"},
		{"//10.67.2.11:6443", "has no scheme"},
		{"ftp://10.67.2.11", `scheme "ftp"`},
		{"https://", "has no host"},
		{"https://10.0.0.1:", "empty port"},
		{"https://10.0.0.1:64x3", "not a URL"},
		{"https://10.0.0.1:6443?x=1", "no query"},
		{"https://admin:hunter2@10.0.0.1:6443", "endpoint https://REDACTED@10.0.0.1:6443 must not carry a user name or password"},
		{"ftp://admin:hunter2@10.0.0.1", "must not carry a user name or password"},
		{"admin:hunter2@10.0.0.1:6443", `endpoint "REDACTED@10.0.0.1:6443"`},
		{"//admin:hunter2@10.0.0.1:6443", "must not carry a user name or password"},
		{"https://admin:hunter2@10.0.0.1:6x43", "not a URL"},
		{"https://10.0.0.1:0", "port 0 is out of range"},
		{"https://10.0.0.1:65536", "port 65536 is out of range"},
		{"https://[api.example]:6443", "not a URL"},
		// An IPv6 literal without brackets: the error says how to write it.
		{"https://2001:db8:6:0:0:0:0:10:6443", `endpoint "https://2001:db8:6:0:0:0:0:10:6443" is not a URL: an IPv6 literal needs brackets: https://[2001:db8:6:0:0:0:0:10]:6443`},
		{"https://2001:db8::10:6443", "an IPv6 literal needs brackets: https://[2001:db8::10]:6443 (or https://[2001:db8::10:6443]"},
		{"https://::1", "an IPv6 literal needs brackets: https://[::1]"},
	}
	for _, tc := range tests {
		_, err := topology.NormalizeEndpoint(tc.in)
		if err == nil {
			t.Errorf("topology.NormalizeEndpoint(%q): no error", tc.in)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("topology.NormalizeEndpoint(%q) error %q, want it to contain %q", tc.in, err, tc.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestSameEndpoint(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"HTTPS://127.0.0.1:6443/", "https://127.0.0.1:6443", true},
		{"https://api.example", "https://API.example:443/", true},
		{"https://[::1]:443", "https://[::1]", true},
		{"https://127.0.0.1:6443", "https://127.0.0.2:6443", false},
		{"https://127.0.0.1:6443", "https://127.0.0.1:6444", false},
		{"http://api.example", "https://api.example", false},
		{"https://lb/a", "https://lb/b", false},
		{"https://[2001:db8::10]:6443", "https://[2001:db8:0:0:0:0:0:10]:6443", true},
		{"https://[2001:DB8::A]:6443", "https://[2001:0db8:0000::000a]:6443/", true},
		{"https://[::1]:6443", "https://[0:0:0:0:0:0:0:1]:6443", true},
		{"https://192.0.2.1:6443", "https://[::ffff:192.0.2.1]:6443", true},
		{"https://[2001:db8::10]:6443", "https://[2001:db8::11]:6443", false},
		{"https://[2001:db8::10]:6443", "https://[2001:db8::10]:6444", false},
		{"https://[fe80::1%25eth0]:6443", "https://[fe80::1%25eth1]:6443", false},
		// IPv4-compatible (deprecated, RFC 4291 2.5.5.1) is not IPv4-mapped: another address.
		{"https://192.0.2.1:6443", "https://[::192.0.2.1]:6443", false},
	}
	for _, tc := range tests {
		got, err := topology.SameEndpoint(tc.a, tc.b)
		if err != nil {
			t.Errorf("topology.SameEndpoint(%q, %q): %v", tc.a, tc.b, err)
			continue
		}
		if got != tc.want {
			t.Errorf("topology.SameEndpoint(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if _, err := topology.SameEndpoint("https://ok:1", "nope"); err == nil {
		t.Error("SameEndpoint with an invalid URL: no error")
	}
}

func TestCheckEndpoint(t *testing.T) {
	tg := &Target{Endpoint: "https://127.0.0.1:36443", Context: "admin@nestor-test",
		Kubeconfig: Kubeconfig{Paths: []string{"/k/bench.conf"}, Source: SourceEnv, Detail: "KUBECONFIG in the environment"}}
	topo := func(endpoint string) *topology.Topology {
		return &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd, Endpoint: endpoint}
	}

	if err := CheckEndpoint(topo("HTTPS://127.0.0.1:36443/"), tg); err != nil {
		t.Errorf("same endpoint written differently: %v", err)
	}

	err := CheckEndpoint(topo("https://10.67.2.11:6443"), tg)
	var mm *EndpointMismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("mismatch: err = %v", err)
	}
	for _, w := range []string{"https://127.0.0.1:36443", "https://10.67.2.11:6443", "/s/dirqual.yaml", "KUBECONFIG in the environment", "/k/bench.conf"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("mismatch error %q does not name %q", err, w)
		}
	}

	err = CheckEndpoint(topo(""), tg)
	var me *MissingEndpointError
	if !errors.As(err, &me) || me.Line != "endpoint: https://127.0.0.1:36443" || !strings.Contains(err.Error(), "/s/dirqual.yaml") {
		t.Errorf("no endpoint: err = %v", err)
	}

	bad := *tg
	bad.Endpoint = "ftp://x"
	if err := CheckEndpoint(topo("https://10.67.2.11:6443"), &bad); err == nil || !strings.Contains(err.Error(), "/k/bench.conf") {
		t.Errorf("invalid target endpoint: err = %v", err)
	}
}
