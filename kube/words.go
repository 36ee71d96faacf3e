package kube

import (
	"strings"
	"time"
)

// JoinAnd is items as a sentence lists them: "a", "a and b", "a, b and c".
func JoinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// JoinOr is items as a sentence offers them: "a", "a or b", "a, b or c".
func JoinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// DateText is t's day in UTC as the views write a date: "2027-01-15".
func DateText(t time.Time) string { return t.UTC().Format(time.DateOnly) }
