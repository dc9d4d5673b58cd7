package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/extender"
	"github.com/berth-sched/berth/pkg/gpu"
)

func TestOptions(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    extender.Config
		wantErr []string
	}{
		{
			name: "defaults are the GPUShare plugin's",
			want: extender.Config{Resources: gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}, Strategy: gpu.Binpack},
		},
		{
			name: "every GPU flag",
			args: []string{"--memory-resource=example.com/vram", "--count-resource=example.com/gpus", "--scoring-strategy=Spread"},
			want: extender.Config{Resources: gpu.ResourceNames{Memory: v1.ResourceName("example.com/vram"), Count: "example.com/gpus"}, Strategy: gpu.Spread},
		},
		{
			name: "the Fragmentation strategy",
			args: []string{"--scoring-strategy=Fragmentation"},
			want: extender.Config{Resources: gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}, Strategy: gpu.FragmentationStrategy},
		},
		{
			name: "serving flags",
			args: []string{"--bind-address=::1", "--port=8443", "--url-prefix=", "--tls-cert-file=c", "--tls-private-key-file=k"},
			want: extender.Config{Resources: gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}, Strategy: gpu.Binpack},
		},
		{
			name: "every bad flag at once",
			args: []string{"--bind-address=localhost", "--port=0", "--tls-cert-file=c", "--url-prefix=berth/",
				"--max-request-bytes=10", "--kube-api-qps=0", "--memory-resource=memory", "--scoring-strategy=Random"},
			wantErr: []string{
				`--bind-address "localhost" is not an IP address`,
				"--port 0 is not between 1 and 65535",
				"--tls-cert-file and --tls-private-key-file go together",
				`--url-prefix "berth/" must be empty or a path like /berth`,
				"--max-request-bytes 10 is less than 1024",
				"--kube-api-qps and --kube-api-burst must be positive",
				`memoryResource: Invalid value: "memory": must be an extended resource name`,
				`scoringStrategy: Unsupported value: "Random"`,
			},
		},
		{
			name: "mutual TLS and leader election",
			args: []string{"--tls-cert-file=c", "--tls-private-key-file=k", "--client-ca-file=" + writeCA(t),
				"--leader-elect", "--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s"},
			want: extender.Config{Resources: gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}, Strategy: gpu.Binpack},
		},
		{
			name: "client certificates without HTTPS, or from a file that is no CA bundle",
			args: []string{"--client-ca-file=" + os.Args[0]},
			wantErr: []string{
				"--client-ca-file needs --tls-cert-file and --tls-private-key-file",
				"--client-ca-file " + os.Args[0] + " holds no PEM certificate",
			},
		},
		{
			name:    "a client CA file that does not exist",
			args:    []string{"--tls-cert-file=c", "--tls-private-key-file=k", "--client-ca-file=/nonexistent/ca.crt"},
			wantErr: []string{"--client-ca-file: open /nonexistent/ca.crt: no such file or directory"},
		},
		{
			name: "a lease no longer than its renew deadline",
			args: []string{"--leader-elect", "--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=2s",
				"--leader-elect-resource-lock=endpoints", "--leader-elect-resource-name="},
			wantErr: []string{
				"each must be positive and the lease longer than the renew deadline",
				`--leader-elect-resource-lock "endpoints": only leases is supported`,
				"--leader-elect-resource-name and --leader-elect-resource-namespace must not be empty",
			},
		},
		{
			name:    "an in-flight bound below one request",
			args:    []string{"--max-request-bytes=4096", "--max-in-flight-request-bytes=4095"},
			wantErr: []string{"--max-in-flight-request-bytes 4095 is less than --max-request-bytes 4096: a request of the largest size would always get 429"},
		},
		{
			name:    "the same resource twice",
			args:    []string{"--count-resource=aliyun.com/gpu-mem"},
			wantErr: []string{"countResource: Invalid value: \"aliyun.com/gpu-mem\": must differ from memoryResource"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOptions()
			all := pflag.NewFlagSet("berth-extender", pflag.ContinueOnError)
			for _, fs := range o.Flags().FlagSets {
				all.AddFlagSet(fs)
			}
			if err := all.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := o.Validate()
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want it to say %q", err, want)
				}
			}
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b *gpu.Strategy) bool { return a == b })); diff != "" {
					t.Errorf("config (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// writeCA writes a self-signed CA certificate and returns its path.
func writeCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
