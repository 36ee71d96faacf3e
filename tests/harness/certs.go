package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certValidity is how long the generated certificates are valid. A test
// cluster lives for seconds or minutes; a day leaves room for a debugger.
const certValidity = 24 * time.Hour

// keyPair is a certificate and its private key, both PEM encoded.
type keyPair struct {
	CertPEM []byte
	KeyPEM  []byte
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
}

// newKey returns a fresh ECDSA P-256 key.
func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// encodeKey returns key as an "EC PRIVATE KEY" PEM block, the form
// kube-apiserver and client-go read.
func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// serial returns a random 127-bit certificate serial number.
func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// newCA returns a self-signed certificate authority named cn.
func newCA(cn string) (*keyPair, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, key, nil)
}

// sign signs tmpl for key with the CA ca (self-signed when ca is nil) and
// returns the pair PEM encoded.
func sign(tmpl *x509.Certificate, key *ecdsa.PrivateKey, ca *keyPair) (*keyPair, error) {
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &keyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  keyPEM,
		cert:    cert,
		key:     key,
	}, nil
}

// newLeaf returns a certificate signed by ca. For a serving certificate pass
// the SANs in ips and dnsNames; for a client certificate pass the user name
// as cn and its groups as orgs (kube-apiserver's x509 authenticator reads
// CN as the user and O as the groups).
func newLeaf(ca *keyPair, cn string, orgs []string, ips []net.IP, dnsNames []string, usage x509.ExtKeyUsage) (*keyPair, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  ips,
		DNSNames:     dnsNames,
	}
	return sign(tmpl, key, ca)
}

// pki is every key and certificate a test cluster uses.
type pki struct {
	CA      *keyPair
	Serving *keyPair
	// Clients maps an identity (IdentityAdmin…) to its client certificate.
	Clients map[string]*keyPair
	// SAKeyPEM signs and verifies service account tokens.
	SAKeyPEM []byte
}

// servingIPs and servingNames are the SANs of the serving certificate: every
// loopback name a test may use to reach the server (the end-to-end test of
// nestor discover reaches it on 127.0.0.2 and as localhost).
var (
	servingIPs   = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.2"), net.IPv6loopback}
	servingNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
)

// newPKI generates a CA, a serving certificate for the loopback addresses,
// one client certificate per identity, and a service account signing key.
func newPKI() (*pki, error) {
	ca, err := newCA("nestor-test-ca")
	if err != nil {
		return nil, fmt.Errorf("generate CA: %w", err)
	}
	serving, err := newLeaf(ca, "nestor-test-apiserver", nil, servingIPs, servingNames, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, fmt.Errorf("generate serving certificate: %w", err)
	}
	p := &pki{CA: ca, Serving: serving, Clients: map[string]*keyPair{}}
	for _, id := range identities {
		kp, err := newLeaf(ca, id.user, id.groups, nil, nil, x509.ExtKeyUsageClientAuth)
		if err != nil {
			return nil, fmt.Errorf("generate client certificate for %s: %w", id.name, err)
		}
		p.Clients[id.name] = kp
	}
	saKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	if p.SAKeyPEM, err = encodeKey(saKey); err != nil {
		return nil, err
	}
	return p, nil
}

// writeFiles writes the files kube-apiserver reads into dir: ca.crt,
// apiserver.crt, apiserver.key and sa.key (keys 0600).
func (p *pki) writeFiles(dir string) error {
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"ca.crt", p.CA.CertPEM, 0o644},
		{"apiserver.crt", p.Serving.CertPEM, 0o644},
		{"apiserver.key", p.Serving.KeyPEM, 0o600},
		{"sa.key", p.SAKeyPEM, 0o600},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return err
		}
	}
	return nil
}
