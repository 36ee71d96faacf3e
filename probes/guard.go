package probes

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/topology"
)

// MissingEndpointError: a prod stack without `endpoint:` cannot be used
// without a confirmation (ARCHITECTURE.md "The target and its confirmation":
// --no-input needs it). Line is the line to add to the topology file.
type MissingEndpointError struct {
	Stack, File string
	// Actual is the target's endpoint.
	Actual string
	// Line is "endpoint: <the target's endpoint>", to be checked by the
	// operator before it is added.
	Line string
}

// Refusal marks the error as a refusal: the target is not the stack's, or
// may not be read for it; nothing was sent.
func (e *MissingEndpointError) Refusal() {}

// Server is the target's endpoint (ServerError).
func (e *MissingEndpointError) Server() string { return e.Actual }

// TopologyKey is the topology key the refusal concerns (endpoint:).
func (e *MissingEndpointError) TopologyKey() string { return topology.KeyEndpoint }

func (e *MissingEndpointError) Error() string {
	return fmt.Sprintf("stack %s has no endpoint:, so nothing proves which cluster would be read without a confirmation (--no-input); check the target and add this line to %s:\n  %s", e.Stack, e.File, e.Line)
}

// EndpointMismatchError: the resolved target is not the API server the
// topology declares.
type EndpointMismatchError struct {
	Stack, File string
	// Declared is the topology's endpoint:, Actual the target's server URL.
	Declared, Actual string
	// Context and Kubeconfig say where Actual came from.
	Context    string
	Kubeconfig Kubeconfig
}

// Refusal marks the error as a refusal: the target is not the stack's, or
// may not be read for it; nothing was sent.
func (e *EndpointMismatchError) Refusal() {}

// Server is the target's endpoint, the one refused (ServerError).
func (e *EndpointMismatchError) Server() string { return e.Actual }

// TopologyKey is the topology key the refusal concerns (endpoint:).
func (e *EndpointMismatchError) TopologyKey() string { return topology.KeyEndpoint }

func (e *EndpointMismatchError) Error() string {
	return fmt.Sprintf("the target is not the stack %s: endpoint %s (context %q, kubeconfig %s, from %s) differs from endpoint: %s in %s",
		e.Stack, e.Actual, e.Context, strings.Join(e.Kubeconfig.Paths, ":"), e.Kubeconfig.Detail, e.Declared, e.File)
}

// CheckEndpoint is the non-interactive target check of ARCHITECTURE.md "The
// target and its confirmation": the target's endpoint must equal the
// topology's `endpoint:` after NormalizeEndpoint (scheme and host name case,
// default port, trailing slash; an IP host compared as an address, so every
// spelling of one IPv6 address matches). It needs no network, so a command
// runs it before sending anything to the target.
//
// It returns nil when they match; *MissingEndpointError when topo declares
// no endpoint; *EndpointMismatchError when they differ (both endpoints as
// written); a normalisation error (naming which side, and for an IPv6
// literal without brackets the URL to write) when either is not a valid URL.
func CheckEndpoint(topo *topology.Topology, t *Target) error {
	return checkEndpoint(topo, t.Endpoint, t.Context, t.Kubeconfig)
}

// checkEndpoint is CheckEndpoint of a server URL endpoint, read from
// context ctx of kubeconfig kc.
func checkEndpoint(topo *topology.Topology, endpoint, ctx string, kc Kubeconfig) error {
	if topo.Endpoint == "" {
		return &MissingEndpointError{Stack: topo.Name, File: topo.Path, Actual: endpoint, Line: "endpoint: " + endpoint}
	}
	declared, err := topology.NormalizeEndpoint(topo.Endpoint)
	if err != nil {
		return fmt.Errorf("%s: %w", topo.Path, err)
	}
	actual, err := topology.NormalizeEndpoint(endpoint)
	if err != nil {
		return fmt.Errorf("kubeconfig %s, context %q: %w", strings.Join(kc.Paths, ":"), ctx, err)
	}
	if declared != actual {
		return &EndpointMismatchError{Stack: topo.Name, File: topo.Path, Declared: topo.Endpoint, Actual: endpoint,
			Context: ctx, Kubeconfig: kc}
	}
	return nil
}
