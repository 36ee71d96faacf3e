package probes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A read stopped by Ctrl-C says "interrupted", never "context canceled"
// (an operator reads "context" as the kubeconfig's), and one stopped by
// its deadline "timed out"; both still match their context error.
func TestStoppedWords(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		is   error
	}{
		{context.Canceled, "interrupted", context.Canceled},
		{context.DeadlineExceeded, "timed out", context.DeadlineExceeded},
	} {
		err := fmt.Errorf("reading stack lab: %w", Stopped(tc.err))
		if got := err.Error(); got != "reading stack lab: "+tc.want {
			t.Errorf("%v: %q", tc.err, got)
		}
		if !errors.Is(err, tc.is) {
			t.Errorf("%v: errors.Is lost", tc.err)
		}
	}
	if Stopped(nil) != nil {
		t.Error("Stopped(nil) is not nil")
	}
	got := Classify(fmt.Errorf(`Get "https://10.0.0.1:6443/api/v1/nodes": %w`, context.Canceled))
	if !strings.HasPrefix(got, "interrupted") || strings.Contains(got, "context") || strings.Contains(got, "canceled") {
		t.Errorf("Classify of a cancelled read: %q", got)
	}
}
