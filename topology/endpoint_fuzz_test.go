package topology

// The fuzz target of the endpoint normalizer. Run it with
//
//	go test -run '^$' -fuzz '^FuzzNormalizeEndpoint$' -fuzztime 30s ./topology
//
// (tests/fuzz.sh runs every target).

import (
	"nestor.dev/nestor/tests/seeds"

	"net/url"
	"regexp"
	"strings"
	"testing"
)

var serverLineRE = regexp.MustCompile(`(?m)^\s*(?:server|endpoint):\s*(\S+)`)

// FuzzNormalizeEndpoint: NormalizeEndpoint never panics; it is idempotent
// (N(N(x)) == N(x)); x and N(x) are the SameEndpoint, and so is every other
// spelling the rule says is the same (scheme and host case, the default port
// written or not, a trailing slash, white space around); an error never
// shows the password of a URL that carries one.
func FuzzNormalizeEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://10.67.2.11:6443", "HTTPS://10.67.2.11:6443/", "https://API.Dirqual.Example",
		"http://127.0.0.1", "https://[::1]:6443", "https://[FE80::1]", "https://lb.example:8443/k8s/clusters/c-1/",
		"  https://10.0.0.1:6443  ", "10.67.2.11:6443", "//10.67.2.11:6443", "ftp://10.67.2.11", "https://",
		"https://10.0.0.1:", "https://10.0.0.1:6443?x=1", "https://admin:hunter2@10.0.0.1:6443",
		"https://h:0", "https://h:00443", "https://h:99999", "https://a%20b", "https://h/%41/", "https://h#f",
		"https://[fe80::1%25eth0]:6443", "https://[2001:db8:0:0:0:0:0:10]:6443",
	} {
		f.Add(s)
	}
	for _, data := range seeds.Files(f, "testdata/endpoint-seeds/*.yaml", "testdata/*.yaml", "testdata/seeds/*.yaml") {
		for _, m := range serverLineRE.FindAllSubmatch(data, -1) {
			f.Add(string(m[1]))
		}
	}
	for _, s := range []string{"https://[2001:DB8:0:0:0:0:0:10]:6443", "https://[::ffff:192.0.2.1]", "https://[fe80::1%25eth0]:6443/k8s/", "https://2001:db8::10:6443"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeEndpoint(s)
		if err != nil {
			// The error never shows the password: it says the same when
			// the password is another (a password may be a piece of the
			// error's own words, "htt" of "https").
			if pw := urlPassword(s); pw != "" && strings.Contains(s, ":"+pw+"@") {
				other := strings.Replace(s, ":"+pw+"@", ":Zq9xPw@", 1)
				if _, err2 := NormalizeEndpoint(other); err2 == nil || strings.ReplaceAll(err2.Error(), "Zq9xPw", pw) != err.Error() ||
					strings.Contains(err2.Error(), "Zq9xPw") {
					t.Fatalf("the error depends on the password %q: %v (with another password: %v)", pw, err, err2)
				}
			}
			return
		}

		n2, err := NormalizeEndpoint(n)
		if err != nil {
			t.Fatalf("N(%q) = %q, which does not normalise: %v", s, n, err)
		}
		if n2 != n {
			t.Fatalf("not idempotent: N(%q) = %q, N(N) = %q", s, n, n2)
		}
		for _, v := range append([]string{s, n}, spellings(n)...) {
			same, err := SameEndpoint(v, s)
			if err != nil || !same {
				t.Fatalf("SameEndpoint(%q, %q) = %v, %v; both normalise to %q", v, s, same, err, n)
			}
		}
	})
}

// spellings returns other spellings of the normalised endpoint n that the
// rule counts as the same server: the scheme and host upper-cased, the port
// with a leading zero, the default port left out, a trailing slash, white
// space around.
func spellings(n string) []string {
	u, err := url.Parse(n)
	if err != nil {
		return nil
	}
	out := []string{n + "/", " " + n + "\t"}
	if strings.Contains(u.Host, "%") {
		// An IPv6 zone names a local interface: its case matters, and
		// url.URL's Host and Hostname hold it unescaped. Only the spellings
		// above apply.
		return out
	}
	out = append(out, strings.ToUpper(u.Scheme)+"://"+strings.ToUpper(u.Host)+u.EscapedPath())
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	out = append(out, u.Scheme+"://"+host+":0"+u.Port()+u.EscapedPath())
	if def := map[string]string{"https": "443", "http": "80"}[u.Scheme]; u.Port() == def {
		out = append(out, u.Scheme+"://"+host+u.EscapedPath())
	}
	return out
}

// urlPassword returns the password s carries as URL user info, "" when
// none (or when the password also appears elsewhere in s).
func urlPassword(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	if len(pw) < 3 || strings.Count(s, pw) > 1 {
		return ""
	}
	return pw
}

// TestNormalizeEndpointPorts: a port is a number: written with leading
// zeros it is the same port; outside 1..65535 it is refused (it used to be
// kept as written, so :0443 and :443 were two servers).
func TestNormalizeEndpointPorts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://h:0443", "https://h:443"},
		{"https://h:06443/", "https://h:6443"},
		{"http://h:000080", "http://h:80"},
		{"https://h:65535", "https://h:65535"},
	} {
		if got, err := NormalizeEndpoint(tc.in); err != nil || got != tc.want {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if same, err := SameEndpoint("https://h:00443", "https://h"); err != nil || !same {
		t.Errorf("SameEndpoint(:00443, no port) = %v, %v", same, err)
	}
	for _, in := range []string{"https://h:0", "https://h:65536", "https://h:99999999999999999999"} {
		if got, err := NormalizeEndpoint(in); err == nil || !strings.Contains(err.Error(), "is out of range (1-65535)") {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want the port refused", in, got, err)
		}
	}
}

// TestNormalizeEndpointHostNames: a host must be a DNS name or an IP
// address. Percent-encoding that decodes to characters no host name has
// (its normal form was no URL at all: not idempotent), and names that are
// not ASCII (whose case rules are not ASCII's), are refused.
func TestNormalizeEndpointHostNames(t *testing.T) {
	for _, in := range []string{"https://%25", "https://a%25b:6443", "https://bücher.example", "https://%C3%A9.example", "https://a%E2%80%A8b"} {
		if got, err := NormalizeEndpoint(in); err == nil || !strings.Contains(err.Error(), "is not a DNS name or an IP address") {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want the host refused", in, got, err)
		}
	}
	// Refused by the URL parser already.
	for _, in := range []string{"https://a%20b:6443", "https://a%2Fb", "https://a%00b", "https://%41pi.example"} {
		if got, err := NormalizeEndpoint(in); err == nil {
			t.Errorf("NormalizeEndpoint(%q) = %q, want an error", in, got)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"https://API.Example", "https://api.example:443"},
		{"https://api_int.example:6443", "https://api_int.example:6443"},
		{"https://192.0.2.10:6443", "https://192.0.2.10:6443"},
	} {
		if got, err := NormalizeEndpoint(tc.in); err != nil || got != tc.want {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
