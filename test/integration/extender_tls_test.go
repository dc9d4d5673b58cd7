package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// extenderPKI is what an operator makes for berth-extender's mutual TLS: a CA for the serving
// certificate (which names the Service), a CA for the scheduler's client certificate, and, to
// show what is refused, a client certificate from a CA the extender does not trust.
type extenderPKI struct {
	dir string
	// Files, as the Deployment and the scheduler's tlsConfig name them.
	ServerCert, ServerKey, ServerCA string
	ClientCert, ClientKey, ClientCA string
	RogueCert, RogueKey             string
}

// newExtenderPKI writes the certificates to a temporary directory. The serving certificate names
// the Service's DNS name, as the shipped tlsConfig's serverName expects, and 127.0.0.1.
func newExtenderPKI(t *testing.T, serviceDNSName string) *extenderPKI {
	t.Helper()
	p := &extenderPKI{dir: t.TempDir()}
	serverCA, serverCAKey := p.ca(t, "berth-extender-server-ca", &p.ServerCA)
	clientCA, clientCAKey := p.ca(t, "berth-extender-client-ca", &p.ClientCA)
	rogueCA, rogueCAKey := p.ca(t, "someone-else-ca", nil)
	p.leaf(t, serverCA, serverCAKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: serviceDNSName},
		DNSNames:    []string{serviceDNSName},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, "server", &p.ServerCert, &p.ServerKey)
	p.leaf(t, clientCA, clientCAKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "system:kube-scheduler"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, "client", &p.ClientCert, &p.ClientKey)
	p.leaf(t, rogueCA, rogueCAKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "system:kube-scheduler"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, "rogue", &p.RogueCert, &p.RogueKey)
	return p
}

var serial int64

func (p *extenderPKI) ca(t *testing.T, name string, file *string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if file != nil {
		*file = p.write(t, name+".crt", "CERTIFICATE", der)
	}
	return cert, key
}

func (p *extenderPKI) leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate, name string, certFile, keyFile *string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	*certFile = p.write(t, name+".crt", "CERTIFICATE", der)
	*keyFile = p.write(t, name+".key", "PRIVATE KEY", keyDER)
}

func (p *extenderPKI) write(t *testing.T, name, blockType string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ExtenderFlags are the serving flags with this PKI's files; given after the Deployment's own
// arguments, they take their place.
func (p *extenderPKI) ExtenderFlags() []string {
	return []string{"--tls-cert-file=" + p.ServerCert, "--tls-private-key-file=" + p.ServerKey, "--client-ca-file=" + p.ClientCA}
}

// SchedulerConfig points the shipped tlsConfig of a KubeSchedulerConfiguration's extender at this
// PKI's files and keeps everything else, serverName included.
func (p *extenderPKI) SchedulerConfig(t *testing.T, config string) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(config), &obj); err != nil {
		t.Fatal(err)
	}
	ext := obj["extenders"].([]any)[0].(map[string]any)
	tlsConfig, ok := ext["tlsConfig"].(map[string]any)
	if !ok || ext["enableHTTPS"] != true {
		t.Fatalf("the extender configuration sets no enableHTTPS and tlsConfig: %v", ext)
	}
	tlsConfig["certFile"], tlsConfig["keyFile"], tlsConfig["caFile"] = p.ClientCert, p.ClientKey, p.ServerCA
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Client is an HTTPS client that trusts the serving CA and presents the given key pair (none if
// certFile is "").
func (p *extenderPKI) Client(t *testing.T, certFile, keyFile string) *http.Client {
	t.Helper()
	caPEM, err := os.ReadFile(p.ServerCA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		// Presented whatever CAs the server names as acceptable: a client that only offered a
		// matching certificate would never show the server a foreign one.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}
}

// extenderRefusesUncertified checks that a bind reaches the extender only with the scheduler's
// client certificate: without one it is refused with 401, and with a certificate from a CA the
// extender does not trust the TLS handshake fails. Each bind names a pod that exists, on a node
// that exists, so a refusal is the only thing that keeps it from binding.
func extenderRefusesUncertified(t *testing.T, pki *extenderPKI, urlPrefix string) {
	t.Helper()
	body := `{"podName":"p","podNamespace":"nobody","podUID":"0","node":"gpu-a"}`
	post := func(c *http.Client) (int, string, error) {
		resp, err := c.Post(urlPrefix+"/bind", "application/json", strings.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	if code, msg, err := post(pki.Client(t, "", "")); err != nil || code != http.StatusUnauthorized {
		t.Errorf("bind without a client certificate: %d %q %v, want 401", code, msg, err)
	}
	if code, msg, err := post(pki.Client(t, pki.RogueCert, pki.RogueKey)); err == nil {
		t.Errorf("bind with a certificate from another CA was answered: %d %q", code, msg)
	}
	// The same request with the scheduler's certificate gets through to the verb, which answers
	// about the pod: the refusals above were the certificate's doing.
	if code, msg, err := post(pki.Client(t, pki.ClientCert, pki.ClientKey)); err != nil || code != http.StatusOK || !strings.Contains(msg, "nobody/p") {
		t.Errorf("bind with the scheduler's certificate: %d %q %v, want 200 with an error about pod nobody/p", code, msg, err)
	}
}

func extenderGetWith(c *http.Client, u string) (int, string) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
