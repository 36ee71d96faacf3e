package probes

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// testPair is a certificate and its key, PEM encoded, made by the tests
// with crypto/x509 (real certificates: crypto/tls and client-go parse them).
type testPair struct {
	CertPEM, KeyPEM []byte
	cert            *x509.Certificate
	key             *ecdsa.PrivateKey
}

// newTestCA returns a self-signed CA valid from an hour ago for a day.
func newTestCA(t testing.TB) *testPair {
	t.Helper()
	now := time.Now()
	return signTestCert(t, nil, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "probes-test-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	})
}

// newTestClientCert returns a client certificate for user cn signed by ca,
// valid from notBefore to notAfter.
func newTestClientCert(t testing.TB, ca *testPair, cn string, notBefore, notAfter time.Time) *testPair {
	t.Helper()
	return signTestCert(t, ca, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: []string{"system:masters"}},
		NotBefore:   notBefore,
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// signTestCert signs tmpl with ca (self-signed when ca is nil) for a fresh
// P-256 key.
func signTestCert(t testing.TB, ca *testPair, tmpl *x509.Certificate) *testPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120)); err != nil {
		t.Fatal(err)
	}
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &testPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		cert:    cert,
		key:     key,
	}
}
