package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc/credentials"
)

// LinkTLS is the mutual-TLS material of the gateway↔broker links: every
// node (broker or gateway) holds a certificate signed by the cluster's CA
// and accepts only peers whose certificate that CA signed. Brokers require
// and verify the gateway's certificate; gateways verify the broker's
// (127.0.0.1 / localhost) and present their own.
type LinkTLS struct {
	CAFile, CertFile, KeyFile string
}

// Enabled reports whether all three files are set.
func (l *LinkTLS) Enabled() bool {
	return l != nil && l.CAFile != "" && l.CertFile != "" && l.KeyFile != ""
}

// Check refuses a partial configuration.
func (l *LinkTLS) Check() error {
	if l == nil || (l.CAFile == "" && l.CertFile == "" && l.KeyFile == "") || l.Enabled() {
		return nil
	}
	return errors.New("cluster TLS needs --cluster-ca, --cluster-cert and --cluster-key together")
}

func (l *LinkTLS) load() (tls.Certificate, *x509.CertPool, error) {
	cert, err := tls.LoadX509KeyPair(l.CertFile, l.KeyFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("cluster TLS key pair: %w", err)
	}
	b, err := os.ReadFile(l.CAFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("cluster TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return tls.Certificate{}, nil, fmt.Errorf("cluster TLS CA %s: no PEM certificate", l.CAFile)
	}
	return cert, pool, nil
}

// ServerCreds are a broker's credentials: TLS 1.3, client certificate
// required and verified against the cluster CA.
func (l *LinkTLS) ServerCreds() (credentials.TransportCredentials, error) {
	cert, pool, err := l.load()
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13}), nil
}

// ClientCreds are a gateway's (or the supervisor's) credentials towards
// brokers.
func (l *LinkTLS) ClientCreds() (credentials.TransportCredentials, error) {
	cert, pool, err := l.load()
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS13}), nil
}

// GenerateLinkTLS creates a fresh cluster CA and one node certificate (for
// 127.0.0.1 and localhost, server and client use) in dir, and forgets the
// CA's private key: nothing else can ever be signed by it.
func GenerateLinkTLS(dir string) (*LinkTLS, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial := func() *big.Int {
		n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
		return n
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "jobwire cluster CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, IsCA: true, BasicConstraintsValid: true,
		MaxPathLenZero: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	nodeKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	nodeTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "jobwire cluster node"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(365 * 24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}, DNSNames: []string{"localhost"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	nodeDER, err := x509.CreateCertificate(rand.Reader, nodeTmpl, ca, &nodeKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	kb, err := x509.MarshalECPrivateKey(nodeKey)
	if err != nil {
		return nil, err
	}
	l := &LinkTLS{CAFile: filepath.Join(dir, "cluster-ca.pem"), CertFile: filepath.Join(dir, "node.pem"), KeyFile: filepath.Join(dir, "node.key")}
	for path, blk := range map[string]*pem.Block{l.CAFile: {Type: "CERTIFICATE", Bytes: caDER},
		l.CertFile: {Type: "CERTIFICATE", Bytes: nodeDER}, l.KeyFile: {Type: "EC PRIVATE KEY", Bytes: kb}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
			return nil, err
		}
	}
	return l, nil
}
