package lima

// The fuzz target of the limactl listing reader. Run it with
//
//	go test -run '^$' -fuzz '^FuzzDecodeLimaList$' -fuzztime 30s ./probes
//
// (tests/fuzz.sh runs every target). Without -fuzz, `go test` runs it on its
// seeds and on the inputs kept under testdata/fuzz/FuzzDecodeLimaList.

import (
	"nestor.dev/nestor/tests/seeds"

	"bytes"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var limaPositionRE = regexp.MustCompile(`instance \d+ .*byte \d+|byte \d+`)

// FuzzDecodeLimaList: decodeLimaList never panics; an error says where the
// output stopped (a byte offset, and the instance when one was being read);
// no instance is read from an output that holds anything but white space or
// an empty array; every instance read has a name; and an output cut short
// is either an error or exactly the instances before the cut — never fewer
// instances passed off as the whole list.
func FuzzDecodeLimaList(f *testing.F) {
	for _, s := range seeds.Files(f, "../../tests/testdata/limactl/*.json*", "testdata/seeds/lima/*") {
		f.Add(s)
	}
	for _, s := range []string{limaJSONLines, limaJSONPretty, limaJSONArray, "", "[]", " [ ] ", "[{}]", `{"name":"a"}{"name":"b"}`, "null", `{"name":"a","cpus":1e3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		l, err := decodeLimaList(out)
		if err != nil {
			if l.vms != nil || l.notVMs != nil {
				t.Fatalf("instances returned with an error: %v", err)
			}
			if !limaPositionRE.MatchString(err.Error()) {
				t.Fatalf("the error does not say where the output stopped: %v", err)
			}
			return
		}
		checkLimaList(t, out, l)
		// Cut the output short at a few places: each cut must be an error
		// or the instances that come before the cut.
		for _, cut := range cuts(len(out)) {
			part, err := decodeLimaList(out[:cut])
			if err != nil {
				continue
			}
			checkLimaList(t, out[:cut], part)
			if !isPrefix(part.vms, l.vms) || !isPrefix(part.notVMs, l.notVMs) {
				t.Fatalf("cut at byte %d, the output reads as %+v, not a prefix of %+v", cut, part, l)
			}
		}
	})
}

// checkLimaList checks the properties of a listing that decoded: the VMs
// and the entries that are not VMs all have a name, and no VM has neither a
// status nor a dir (such an entry is not a VM).
func checkLimaList(t *testing.T, out []byte, l limaList) {
	t.Helper()
	vms := l.vms
	if vms == nil {
		t.Fatalf("nil list (an empty list is [])")
	}
	for i, e := range l.notVMs {
		if e.Name == "" {
			t.Fatalf("entry %d that is not a VM has no name", i+1)
		}
	}
	for _, vm := range vms {
		if vm.Status == "" && vm.Dir == "" {
			t.Fatalf("a VM with neither a status nor a dir: %+v", vm)
		}
	}
	if len(vms)+len(l.notVMs) == 0 {
		s := strings.TrimSpace(string(out))
		if s != "" && strings.Join(strings.Fields(s), "") != "[]" {
			t.Fatalf("0 VMs read from %q", out)
		}
	}
	for i, vm := range vms {
		if vm.Name == "" {
			t.Fatalf("instance %d has no name", i+1)
		}
		for _, text := range []string{vm.Name, vm.Status, vm.Dir, vm.VMType} {
			if unprintable(text) {
				t.Fatalf("instance %d: %q reached the model unescaped", i+1, text)
			}
		}
	}
	for i, e := range l.notVMs {
		if unprintable(e.Name) {
			t.Fatalf("entry %d that is not a VM: %q reached the model unescaped", i+1, e.Name)
		}
	}
}

// unprintable reports whether s holds what sanitizeName escapes: invalid
// UTF-8, control and format characters, line and paragraph separators.
func unprintable(s string) bool {
	return !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	}) >= 0
}

// isPrefix reports whether part's entries are the first entries of whole,
// in order. A nil slice and an empty one are both "no entries".
func isPrefix[T any](part, whole []T) bool {
	if len(part) > len(whole) {
		return false
	}
	for i := range part {
		if !reflect.DeepEqual(part[i], whole[i]) {
			return false
		}
	}
	return true
}

// cuts returns up to 17 cut points inside [1, n-1], spread evenly.
func cuts(n int) []int {
	if n < 2 {
		return nil
	}
	var out []int
	step := max(1, (n-1)/16)
	for c := 1; c < n; c += step {
		out = append(out, c)
	}
	return append(out, n-1)
}

// TestDecodeLimaListCutOff: an output cut anywhere inside an instance is an
// error naming the instance and the bytes, in each of lima's three formats.
func TestDecodeLimaListCutOff(t *testing.T) {
	for _, tc := range []struct{ name, out string }{
		{"JSON lines", limaJSONLines},
		{"pretty objects back to back", limaJSONPretty},
		{"JSON array", limaJSONArray},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := []byte(strings.TrimSpace(tc.out))
			second := bytes.Index(full, []byte(`"name":"lima-node2"`))
			if second < 0 {
				second = bytes.Index(full, []byte(`"name": "lima-node2"`))
			}
			start := bytes.LastIndexByte(full[:second], '{')
			for _, cut := range []int{start + 1, second + 5, len(full) - 2} {
				l, err := decodeLimaList(full[:cut])
				if err == nil {
					t.Fatalf("cut at %d: read %d VMs from a cut output", cut, len(l.vms))
				}
				want := regexp.MustCompile(`the output stops inside instance 2 \(which starts at byte ` + regexp.QuoteMeta(itoa(start)) + `; the output ends at byte ` + itoa(cut) + `\): it is cut off`)
				if !want.MatchString(err.Error()) {
					t.Errorf("cut at %d: %v", cut, err)
				}
			}
		})
	}
}

// TestDecodeLimaListErrorsSayWhere: every kind of unreadable output names
// the instance and the byte where it starts (offsets count from the start of
// the output, leading white space included).
func TestDecodeLimaListErrorsSayWhere(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"\n{\"name\":\"a\"}\n{\"name\":x}", "instance 2 (starting at byte 14): invalid character 'x'"},
		{`{"name":"a"} {"name":"b","cpus":"2"}`, "instance 2 (starting at byte 13): json: cannot unmarshal string into Go struct field limaInstance.cpus of type int"},
		{`{"name":"a"}` + "\n" + `{"status":"Running"}`, "instance 2 (starting at byte 13): it has no name"},
		{`[{"name":"a"},,]`, "instance 2 (starting at byte 14): invalid character ','"},
		{`[{"name":"a"} {"name":"b"}]`, "instance 2 (starting at byte 14): expected comma after array element"},
		{`[{"name":"a"}] {}`, "unexpected data after the JSON array (byte 15)"},
		{`[1]`, "instance 1 (starting at byte 1): json: cannot unmarshal number"},
		{`time="..." level=fatal msg=oops`, "instance 1 (starting at byte 0): invalid character 'i' in literal true"},
		{"  {", "the output stops inside instance 1 (which starts at byte 2; the output ends at byte 3): it is cut off"},
		{"[", "the output stops inside instance 1 (which starts at byte 1; the output ends at byte 1): it is cut off"},
	} {
		vms, err := decodeLimaList([]byte(tc.out))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decodeLimaList(%q) = %v, %v; want the error %q", tc.out, vms, err, tc.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
