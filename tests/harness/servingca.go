package harness

import (
	"crypto/x509"
	"fmt"
)

// ServingPair is a fresh certificate authority and a serving certificate
// it signed, all PEM encoded: for a test server of its own (a fault proxy
// in front of the API server) that clients reach over TLS.
type ServingPair struct {
	// CAPEM is the CA's certificate: what a client's kubeconfig trusts.
	CAPEM []byte
	// CertPEM and KeyPEM are the serving certificate and its key.
	CertPEM, KeyPEM []byte
}

// NewServingPair generates a CA named cn+"-ca" and a serving certificate
// named cn for the loopback names the API server's certificate covers
// (127.0.0.1, 127.0.0.2, ::1, localhost…), ECDSA P-256, valid a day. It
// returns an error only when key generation or signing fails.
func NewServingPair(cn string) (*ServingPair, error) {
	ca, err := newCA(cn + "-ca")
	if err != nil {
		return nil, fmt.Errorf("generate a CA for %s: %w", cn, err)
	}
	leaf, err := newLeaf(ca, cn, nil, servingIPs, servingNames, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, fmt.Errorf("generate a serving certificate for %s: %w", cn, err)
	}
	return &ServingPair{CAPEM: ca.CertPEM, CertPEM: leaf.CertPEM, KeyPEM: leaf.KeyPEM}, nil
}
