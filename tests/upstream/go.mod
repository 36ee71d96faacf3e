// Module upstream pins the releases of the operators whose own
// CustomResourceDefinitions the end-to-end tests load into the test
// cluster (tests/harness/upstream_crds.go). Each module's zip, as the Go
// module proxy serves it, holds its CRD YAML; go.sum pins their hashes.
// Nothing imports them: `go mod download` (in this folder) fetches them
// into the module cache, and the harness reads the files there. Do not run
// `go mod tidy` here: with no import it would drop every requirement.
// The upstream files are never copied into this repository.
module nestor.dev/tests/upstream

go 1.26.3

require (
	github.com/argoproj/argo-cd/v3 v3.5.7
	github.com/cert-manager/cert-manager v1.21.2
	github.com/cloudnative-pg/cloudnative-pg v1.28.0
	github.com/external-secrets/external-secrets v0.16.2
	github.com/fluxcd/helm-controller v1.4.0
	github.com/fluxcd/kustomize-controller v1.9.6
	github.com/fluxcd/source-controller v1.9.6
	github.com/longhorn/longhorn-manager v1.10.0
	github.com/prometheus-operator/prometheus-operator v0.85.0
	github.com/rook/rook v1.18.8
)
