package main

import (
	"bytes"
	"strings"
	"testing"
)

// berth's own flags are listed by --help beside kube-scheduler's, and a bad value is refused
// before anything starts, naming the flag.
func TestBerthFlags(t *testing.T) {
	var out bytes.Buffer
	cmd := newCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("--help: %v", err)
	}
	help := out.String()
	for _, want := range []string{"Leader election flags:", "Berth flags:", "--wait-reason-period duration", "--wait-reason-disabled"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not list %q", want)
		}
	}

	out.Reset()
	cmd = newCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--wait-reason-period=10ms"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--wait-reason-period") {
		t.Fatalf("--wait-reason-period=10ms: error %v, want one naming the flag", err)
	}
}
