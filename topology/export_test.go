package topology

// The bounds of a decoded status object, for the external tests of
// status_decode.go.
const (
	StatusMaxConditions = statusMaxConditions
	StatusMaxText       = statusMaxText
)
