package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Cert is a self-signed server certificate for 127.0.0.1.
type Cert struct {
	Pair     tls.Certificate // for a server's tls.Config
	Pool     *x509.CertPool  // trusts Pair: for a client's RootCAs
	CertFile string          // PEM files, when written (Write)
	KeyFile  string
}

// New makes a fresh certificate and key.
func New() (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "inlet test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		// A CA as well, so that clients which want a CA file (the mariadb
		// CLI's --ssl-ca) can be handed the certificate itself.
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &Cert{Pair: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, Pool: pool}, nil
}

// ClientConfig is a client tls.Config that verifies the certificate.
func (c *Cert) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: c.Pool, ServerName: "127.0.0.1"}
}

// Write stores the certificate and its key as PEM files cert.pem and
// key.pem in dir and records their paths.
func (c *Cert) Write(dir string) error {
	kder, err := x509.MarshalECPrivateKey(c.Pair.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		return err
	}
	c.CertFile, c.KeyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(c.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Pair.Certificate[0]}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(c.KeyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}
