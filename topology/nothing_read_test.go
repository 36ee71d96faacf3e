package topology

import (
	"reflect"
	"strings"
	"testing"
)

// NothingRead is false as soon as any one fact of a reading is known —
// each Fact field of Observed and of its provider part, found by
// reflection so that a fact added later is held to the rule — and true
// when all are unknown, or when there was no target.
func TestNothingReadSeesEveryFact(t *testing.T) {
	fresh := func() *Observed {
		return &Observed{Layers: []LayerState{{Name: "cilium", Declared: true, Health: Unknown}}, Kapsule: &KapsuleObserved{}}
	}
	if !fresh().NothingRead() {
		t.Fatal("every fact unknown, yet something was read")
	}
	if !(&Observed{NoTarget: true, ServerVersion: KnownFact("v1.37.2")}).NothingRead() {
		t.Error("no target, yet something was read")
	}
	n := 0
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f, ft := v.Field(i), v.Type().Field(i)
			switch {
			case strings.HasPrefix(ft.Type.Name(), "Fact["):
				n++
				o := fresh()
				target := reflect.ValueOf(o).Elem()
				for _, p := range strings.Split(strings.TrimPrefix(path+"."+ft.Name, "."), ".") {
					if target.Kind() == reflect.Pointer {
						target = target.Elem()
					}
					target = target.FieldByName(p)
				}
				target.FieldByName("Known").SetBool(true)
				if o.NothingRead() {
					t.Errorf("%s known, yet NothingRead", strings.TrimPrefix(path+"."+ft.Name, "."))
				}
			case ft.Type == reflect.TypeOf(&KapsuleObserved{}):
				walk(path+"."+ft.Name, reflect.New(ft.Type.Elem()).Elem())
			case ft.Anonymous && ft.Type.Kind() == reflect.Struct:
				walk(path+"."+ft.Name, f)
			}
		}
	}
	walk("", reflect.ValueOf(Observed{}))
	if n < 10 {
		t.Errorf("%d facts found: the walk is wrong", n)
	}
	o := fresh()
	vms := KnownFact([]VM{{Name: "lab1", Status: "Stopped"}})
	o.VMs = &vms
	if o.NothingRead() {
		t.Error("the VMs were read, yet NothingRead")
	}
	o = fresh()
	o.Layers[0].Health = Degraded
	if o.NothingRead() {
		t.Error("a layer was judged from a read, yet NothingRead")
	}
}
