package topology

import (
	"strings"
	"testing"
)

// kapsuleWithType is a valid kapsule topology whose scaleway: section
// declares type: typ (written as given, quotes included).
func kapsuleWithType(typ string) string {
	return "name: apps\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: 6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90\n  type: " + typ +
		"\npools:\n  - {name: default, node_type: PRO2-XXS, size: 3}\n"
}

// scaleway.type: every name of the provider's naming loads, a tier nestor
// does not list included (the provider may offer it); every other
// spelling is an error at its line and column, naming the field, with a
// did-you-mean.
func TestLoadScalewayType(t *testing.T) {
	for _, typ := range []string{"kapsule", "kapsule-dedicated-4", "kapsule-dedicated-8", "kapsule-dedicated-16", "multicloud",
		"multicloud-dedicated-16", "kapsule-dedicated-32", `"kapsule-dedicated-8"`} {
		tp, err := Parse("apps.yaml", []byte(kapsuleWithType(typ)))
		if err != nil {
			t.Errorf("type %s: %v", typ, err)
			continue
		}
		if want := strings.Trim(typ, `"`); tp.Scaleway.Type != want {
			t.Errorf("type %s: loaded %q", typ, tp.Scaleway.Type)
		}
		if p, ok := tp.PositionOf(KeyScalewayType); !ok || p.Line != 6 || p.Column != 3 {
			t.Errorf("type %s: position %+v %v, want line 6 column 3", typ, p, ok)
		}
	}
	for typ, want := range map[string]string{
		"Kapsule-Dedicated-4": `apps.yaml:6:9: scaleway.type: "Kapsule-Dedicated-4" is not a cluster type (kapsule, multicloud, or either followed by -dedicated-N) (did you mean kapsule-dedicated-4? use one of kapsule, kapsule-dedicated-4, kapsule-dedicated-8, kapsule-dedicated-16, multicloud, multicloud-dedicated-4, multicloud-dedicated-8, multicloud-dedicated-16)`,
		"kapsule-dedicated":   `apps.yaml:6:9: scaleway.type: "kapsule-dedicated" is not a cluster type (kapsule, multicloud, or either followed by -dedicated-N) (did you mean kapsule-dedicated-4? use one of`,
		"dedicated-4":         `apps.yaml:6:9: scaleway.type: "dedicated-4" is not a cluster type`,
		"kosmos":              `apps.yaml:6:9: scaleway.type: "kosmos" is not a cluster type`,
		"kapsule-dedicated-0": `apps.yaml:6:9: scaleway.type: "kapsule-dedicated-0" is not a cluster type`,
		"4":                   `apps.yaml:6:9: scaleway.type: "4" is not a cluster type`,
		"true":                `apps.yaml:6:9: scaleway.type: must be a string, found a boolean`,
		`""`:                  `apps.yaml:6:9: scaleway.type: "" is not a cluster type`,
	} {
		_, err := Parse("apps.yaml", []byte(kapsuleWithType(typ)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("type %q: error %v, want it to hold %q", typ, err, want)
		}
	}
	// type: with no value is not declared, as every key of scaleway: is.
	if tp, err := Parse("apps.yaml", []byte(kapsuleWithType(""))); err != nil || tp.Scaleway.Type != "" {
		t.Errorf("type: null: %v %+v", err, tp)
	}
	// Not a kapsule stack: the whole scaleway: section is refused, type: with it.
	_, err := Parse("apps.yaml", []byte(strings.Replace(kapsuleWithType("kapsule"), "target_kind: kapsule", "target_kind: prod", 1)))
	if err == nil || !strings.Contains(err.Error(), "scaleway: is only for target_kind: kapsule") {
		t.Errorf("prod with scaleway.type: %v", err)
	}
}

func TestParseClusterType(t *testing.T) {
	for name, want := range map[string]ClusterType{
		"kapsule":                 {Name: "kapsule", Family: "kapsule", Parsed: true},
		"kapsule-dedicated-16":    {Name: "kapsule-dedicated-16", Family: "kapsule", Tier: 16, Parsed: true},
		"multicloud-dedicated-4":  {Name: "multicloud-dedicated-4", Family: "multicloud", Tier: 4, Parsed: true},
		"kapsule-dedicated-04":    {Name: "kapsule-dedicated-04"},
		"kapsule_dedicated_4":     {Name: "kapsule_dedicated_4"},
		"kapsule-dedicated-4-ha":  {Name: "kapsule-dedicated-4-ha"},
		" kapsule":                {Name: " kapsule"},
		"multicloud-dedicated-99": {Name: "multicloud-dedicated-99", Family: "multicloud", Tier: 99, Parsed: true},
	} {
		if got := ParseClusterType(name); got != want {
			t.Errorf("ParseClusterType(%q) = %+v, want %+v", name, got, want)
		}
	}
}

func TestDecimalMBAndPercent(t *testing.T) {
	for b, want := range map[uint64]string{55_000_000: "55 MB", 200_000_000: "200 MB", 12_345_678: "12.3 MB", 54_999_999: "55 MB", 0: "0 MB", 1_050_000: "1.1 MB"} {
		if got := DecimalMB(b); got != want {
			t.Errorf("DecimalMB(%d) = %q, want %q", b, got, want)
		}
	}
	// Rounded up: one node short of the limit is not "99%, fine".
	m := NewMeasure(MeasureNodes, "nodes", "nodes", KnownFact[uint64](149), KnownFact[uint64](150), "kapsule")
	if m.Percent == nil || *m.Percent != 100 {
		t.Errorf("149 of 150: %v", m.Percent)
	}
	m = NewMeasure(MeasureEtcd, "etcd", "bytes", UnknownFact[uint64](Because(ReasonForbidden, "forbidden")), KnownFact[uint64](55_000_000), "kapsule")
	if m.Percent != nil {
		t.Errorf("an unknown figure has a percent: %d", *m.Percent)
	}
}
