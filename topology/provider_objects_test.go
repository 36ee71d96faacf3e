package topology

import (
	"strings"
	"testing"
	"time"
)

func stampAt(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func write(manager, when string, fields ...FieldPath) ObjectWrite {
	w := ObjectWrite{Manager: manager, Operation: "Update", Fields: fields}
	if when != "" {
		w.Time = stampAt(when)
	}
	return w
}

var testMarks = ProviderMarks{Provider: "Acme", Namespace: "kube-system", Labels: []string{"acme/system"}, ModeKey: AddonModeKey,
	Managers: []string{"acme-addons"}, Source: "acme docs",
	Resources: []ProviderResource{{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, {Version: "v1", Resource: "services", Kind: "Service"}, {Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet"}}}

// TestProviderObjectsDeriveAndJudge: the counts by owner, what a mode
// makes of an edit, a provider's write without a time, and the lists not
// read grouped by their reason (one unknown each, no finding).
func TestProviderObjectsDeriveAndJudge(t *testing.T) {
	marked := map[string]string{"acme/system": "dns"}
	provider := write("acme-addons", "2026-11-02T08:00:00Z", FieldPath{"data", "Corefile"}, FieldPath{"metadata", "labels", "acme/system"})
	edit := write("kubectl-edit", "2026-11-03T08:00:00Z", FieldPath{"data", "Corefile"})
	objs := []NamespaceObject{
		{Kind: "ConfigMap", Name: "a-reconcile", Marks: marked, Mode: AddonReconcile, Writes: []ObjectWrite{provider, edit}},
		{Kind: "ConfigMap", Name: "b-ensure", Marks: marked, Mode: AddonEnsureExists, Writes: []ObjectWrite{provider, edit}},
		{Kind: "ConfigMap", Name: "c-nomode", Marks: marked, Writes: []ObjectWrite{provider, edit}},
		{Kind: "ConfigMap", Name: "d-oddmode", Marks: marked, Mode: "Sometimes", Writes: []ObjectWrite{provider, edit}},
		{Kind: "ConfigMap", Name: "e-notime", Marks: marked, Writes: []ObjectWrite{write("acme-addons", ""), edit}},
		{Kind: "ConfigMap", Name: "f-clean", Marks: marked, Writes: []ObjectWrite{provider}},
		{Kind: "ConfigMap", Name: "g-kube", Writes: []ObjectWrite{write("kube-controller-manager", "2026-11-02T08:00:00Z", FieldPath{"data", "ca.crt"})}},
		{Kind: "ConfigMap", Name: "h-yours", Writes: []ObjectWrite{write("kube-controller-manager", "2026-11-02T08:00:00Z", FieldPath{"data", "x"}), write("helm", "2026-11-04T08:00:00Z", FieldPath{"data", "y"})}},
	}
	forbidden := UnknownFact[[]NamespaceObject](Because(ReasonForbidden, "forbidden (user u cannot list services)"))
	po := &ProviderObjects{Marks: testMarks, Lists: []ProviderObjectList{
		{ProviderResource: testMarks.Resources[0], Objects: KnownFact(objs)},
		{ProviderResource: testMarks.Resources[1], Objects: forbidden},
		{ProviderResource: testMarks.Resources[2], Objects: forbidden},
	}}
	po.Derive()
	if c := po.Counts; c != (ProviderObjectCounts{Complete: false, Provider: 6, Edited: 4, Unjudged: 1, Kubernetes: 1, Yours: 1}) {
		t.Errorf("counts %+v", c)
	}
	findings, unknowns := JudgeProviderObjects(po)
	want := map[string]string{
		"ConfigMap kube-system/a-reconcile": "Reconcile: the provider reverts this",
		"ConfigMap kube-system/b-ensure":    "EnsureExists: yours from now on",
		"ConfigMap kube-system/c-nomode":    "no addonmanager.kubernetes.io/mode: whether the provider reverts it or leaves it to you is not said",
		"ConfigMap kube-system/d-oddmode":   `addonmanager.kubernetes.io/mode "Sometimes", which nestor does not know`,
	}
	if len(findings) != len(want) {
		t.Fatalf("findings %+v, want %d", findings, len(want))
	}
	for _, f := range findings {
		if !strings.Contains(f.Message, want[f.Subject.Name]) || f.Source != "acme docs" || !strings.Contains(f.Reach, "acme-addons") || f.Subject.Key != KeyName {
			t.Errorf("finding %+v, want %q", f, want[f.Subject.Name])
		}
	}
	if len(unknowns) != 2 {
		t.Fatalf("unknowns %+v, want the unread lists (one reason) and e-notime", unknowns)
	}
	if u := unknowns[0]; u.Subject.Text != "services and daemonsets in kube-system" || u.Code != ReasonForbidden || u.Subject.Kind != SubjectProviderObjects {
		t.Errorf("unknown %+v, want the two forbidden lists said once", u)
	}
	if u := unknowns[1]; u.Subject.Name != "ConfigMap kube-system/e-notime" || !strings.Contains(u.Message, "carries no time") {
		t.Errorf("unknown %+v", u)
	}

	// No mode key at all (a provider without an addon manager).
	noMode := testMarks
	noMode.ModeKey = ""
	po = &ProviderObjects{Marks: noMode, Lists: []ProviderObjectList{{ProviderResource: testMarks.Resources[0], Objects: KnownFact(objs[:1])}}}
	po.Derive()
	if f, _ := JudgeProviderObjects(po); len(f) != 1 || !strings.Contains(f[0].Message, "what Acme does with an edited object is not said by its marks") {
		t.Errorf("without a mode key: %+v", f)
	}
	if f, u := JudgeProviderObjects(nil); f != nil || u != nil {
		t.Errorf("nothing read: %v %v", f, u)
	}
}
