package harness

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"time"
)

// SignClientCert returns a client certificate and its key (PEM) for user,
// in groups, signed by the cluster's CA and valid from notBefore to
// notAfter — dates a test chooses, e.g. an admin.conf that expired a year
// ago. kube-apiserver's x509 authenticator reads CN as the user and O as
// the groups, and refuses a certificate outside its validity period (401).
func (c *Cluster) SignClientCert(user string, groups []string, notBefore, notAfter time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	kp, err := sign(&x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, key, c.pki.CA)
	if err != nil {
		return nil, nil, fmt.Errorf("sign a client certificate for %s: %w", user, err)
	}
	return kp.CertPEM, kp.KeyPEM, nil
}
