package topology

import "testing"

func TestIPv6BracketHint(t *testing.T) {
	const needs = "an IPv6 literal needs brackets: "
	for _, tc := range []struct{ in, want string }{
		// A port after the address: one reading only.
		{"https://2001:db8:6:0:0:0:0:10:6443", needs + "https://[2001:db8:6:0:0:0:0:10]:6443"},
		{"https://2001:DB8:0:0:0:0:0:A:6443/k8s/", needs + "https://[2001:DB8:0:0:0:0:0:A]:6443/k8s/"},
		{"https://::1:6443", needs + "https://[::1]:6443 (or https://[::1:6443] if the last group is part of the address, not the port)"},
		// The last group could be a port or part of the address: both named.
		{"https://2001:db8::10:6443", needs + "https://[2001:db8::10]:6443 (or https://[2001:db8::10:6443] if the last group is part of the address, not the port)"},
		// No port at all: the address alone.
		{"https://2001:db8::abcd", needs + "https://[2001:db8::abcd]"},
		{"https://fe80::1%eth0", needs + "https://[fe80::1%25eth0]"},
		// No scheme (a kubeconfig server): client-go reads it as https.
		{"2001:db8:0:0:0:0:0:10:6443", needs + "https://[2001:db8:0:0:0:0:0:10]:6443"},
		{" http://2001:db8:0:0:1:0:0:10:80 ", needs + "http://[2001:db8:0:0:1:0:0:10]:80"},
		// Not an unbracketed IPv6 literal: no hint.
		{"https://[2001:db8::10]:6443", ""},
		{"https://10.0.0.1:6443", ""},
		{"https://localhost:80:80", ""},
		{"https://api.example:6443", ""},
		{"https://admin:pw@2001:db8::10:6443", ""},
		{"https://2001:db8::zz:6443", ""},
		{"https://1.2.3.4:5:6443", ""},
		{"", ""},
	} {
		if got := IPv6BracketHint(tc.in); got != tc.want {
			t.Errorf("IPv6BracketHint(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
