package topology

import "strings"

// SuggestName turns s (a file's base name, a name written in a topology)
// into a valid stack name (CheckName): lowercase, every run of other
// characters than [a-z0-9] one '-', no '-' at either end; "stack" when
// nothing is left. "Bad_Name" → "bad-name".
func SuggestName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "stack"
	}
	return b.String()
}
