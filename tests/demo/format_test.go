package main

// Unit tests of the demo's pure parts: the output normalisation, the
// README block, the audit sentence and the JSON summary.

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

func TestNormalize(t *testing.T) {
	tmp := "/var/tmp/TestX/001"
	today := time.Now().Format("2006-01-02")
	in := "Target: https://127.0.0.1:37213  kubeconfig /var/tmp/TestX/001/nestor-demo-2349123709/kube/demo.config\n" +
		"other https://127.0.0.2:6443, cluster /var/tmp/TestX/001/nestor-test-cluster-17, as of " + today + ", support ends 2027-02-28\n" +
		"elsewhere /tmp/nestor-demo-5 stays\n"
	want := "Target: https://127.0.0.1:NNNNN  kubeconfig /tmp/nestor-demo-XXXXXX/kube/demo.config\n" +
		"other https://127.0.0.2:6443, cluster /tmp/nestor-test-cluster-XXXXXX, as of YYYY-MM-DD, support ends 2027-02-28\n" +
		"elsewhere /tmp/nestor-demo-5 stays\n"
	if got := normalize(in, tmp, "1999-01-01"); got != want {
		t.Errorf("normalize:\n got %q\nwant %q", got, want)
	}
	// The pinned --as-of date stays, even on that very day.
	pinned := "judged as of " + today + "\n"
	if got := normalize(pinned, tmp, today); got != pinned {
		t.Errorf("normalize(pinned date) = %q, want it unchanged", got)
	}
}

func TestReadmeBlock(t *testing.T) {
	text := "intro\n" + readmeBegin + "\n```text\nline 1\nline 2\n```\n" + readmeEnd + "\nrest\n"
	block, start, end, err := readmeBlock(text)
	if err != nil {
		t.Fatal(err)
	}
	if block != "line 1\nline 2\n" || text[start:end] != block {
		t.Errorf("block %q (at %d:%d)", block, start, end)
	}
	if got := text[:start] + "new\n" + text[end:]; got != "intro\n"+readmeBegin+"\n```text\nnew\n```\n"+readmeEnd+"\nrest\n" {
		t.Errorf("rewrite gives %q", got)
	}
	for name, bad := range map[string]string{
		"no markers":      "```text\nx\n```\n",
		"no end":          readmeBegin + "\n```text\nx\n```\n",
		"end before":      readmeEnd + "\n" + readmeBegin + "\n```text\nx\n```\n",
		"not fenced":      readmeBegin + "\nx\n" + readmeEnd + "\n",
		"another fence":   readmeBegin + "\n```sh\nx\n```\n" + readmeEnd + "\n",
		"text after code": readmeBegin + "\n```text\nx\n```\nmore\n" + readmeEnd + "\n",
	} {
		if _, _, _, err := readmeBlock(bad); err == nil {
			t.Errorf("%s: no error for %q", name, bad)
		}
	}
}

func TestDescribeRequests(t *testing.T) {
	ev := func(verb string) harness.AuditEvent {
		return harness.AuditEvent{Verb: verb, RequestURI: "/api/v1/nodes"}
	}
	for _, tc := range []struct {
		events []harness.AuditEvent
		want   string
	}{
		{nil, "none"},
		{[]harness.AuditEvent{ev("list"), ev("get"), ev("list")}, "3 (get 1, list 2), all reads"},
		{[]harness.AuditEvent{ev("watch")}, "1 (watch 1), all reads"},
		{[]harness.AuditEvent{ev("list"), ev("create")}, "2 (create 1, list 1), NOT all reads: create /api/v1/nodes"},
	} {
		if got := describeRequests(tc.events); got != tc.want {
			t.Errorf("describeRequests(%v) = %q, want %q", tc.events, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	doc := `{"format_version": 1, "stack": {"name": "s", "target_kind": "prod"},
	  "target": {"endpoint": "https://h:6443", "endpoint_matches": false},
	  "actual": {"server_version": {"known": false, "reason": "timeout"},
	    "nodes": {"known": false, "reason": "nodes: forbidden"},
	    "layers": [{"name": "cilium", "declared": true, "health": "unknown"},
	               {"name": "flux", "declared": false, "health": "healthy"}]},
	  "summary": {"changes": 0, "by_kind": {}, "undeclared": 1, "unknown": 2, "in_sync": false}}`
	var out bytes.Buffer
	d := &demo{out: &out}
	if err := d.summarize(result{code: 0, stdout: doc, output: "a warning\n"}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"a warning",
		"  format_version 1, stack s (prod), target https://h:6443 (endpoint does NOT match the topology)",
		"  actual.nodes   unknown: nodes: forbidden",
		"  actual.layers  unknown cilium; undeclared flux",
		"  summary        0 changes, 1 undeclared, 2 unknown, in_sync false",
		"exit code 0",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", out.String(), want)
	}
	if err := d.summarize(result{code: 1, stdout: "Error: x"}); err == nil {
		t.Error("no error for a stdout that is not the JSON document")
	}
}
