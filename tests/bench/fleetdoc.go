package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CheckFleet checks the document of `nestor fleet -o json` (format version
// 2, README "fleet"): want stacks listed, every stack whose name starts
// with "prod" (the benchmarks' prod stacks, their fixture read in full) in
// sync. It returns the statuses counted ("map[in sync:32]"), or an error
// naming the first stack that is not in sync and its reason.
func CheckFleet(out []byte, want int) (string, error) {
	var doc struct {
		Stacks []struct {
			Name, Status, Reason string
		} `json:"stacks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return "", fmt.Errorf("fleet -o json: %v", err)
	}
	if len(doc.Stacks) != want {
		return "", fmt.Errorf("fleet listed %d stacks, want %d", len(doc.Stacks), want)
	}
	count := map[string]int{}
	for _, s := range doc.Stacks {
		if strings.HasPrefix(s.Name, "prod") && s.Status != "in sync" {
			return "", fmt.Errorf("stack %s: %s (%s), want in sync", s.Name, s.Status, s.Reason)
		}
		count[s.Status]++
	}
	return fmt.Sprint(count), nil
}
