package topology

import "testing"

// TestNormalizeEndpointZones: an IPv6 zone is written percent-encoded as
// RFC 6874 writes it in a URI, whatever it holds, and the result is a fixed
// point (a zone with a space, a bracket, a sub-delimiter, a non-ASCII
// letter, or one that begins with 25).
func TestNormalizeEndpointZones(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://[fe80::1%25eth0]:6443", "https://[fe80::1%25eth0]:6443"},
		{"http://[::%25%20]", "http://[::%25%20]:80"},
		{"https://[fe80::1%25en%5B0]", "https://[fe80::1%25en%5B0]:443"},
		{"https://[fe80::1%25en!0]", "https://[fe80::1%25en%210]:443"},
		{"https://[fe80::1%25zoné]", "https://[fe80::1%25zoné]:443"},
		{"https://[fe80::1%2525x]", "https://[fe80::1%2525x]:443"},
		{"https://[FE80::1%25Eth0]", "https://[fe80::1%25Eth0]:443"},
	} {
		got, err := NormalizeEndpoint(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		if again, err := NormalizeEndpoint(got); err != nil || again != got {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v: not a fixed point", got, again, err)
		}
	}
}
