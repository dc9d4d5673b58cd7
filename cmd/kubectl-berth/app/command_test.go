package app

import (
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/topology"
)

// --topology-levels takes Gang's topologyLevels, checked as the scheduler checks them, before
// anything is read from a cluster.
func TestGangsTopologyLevelsFlag(t *testing.T) {
	for value, want := range map[string]string{
		"example.com/spine,example.com/spine": `topologyLevels[1]: Duplicate value: "example.com/spine"`,
		"example.com/spine,,example.com/leaf": "topologyLevels[1]: Required value: a node label key",
		"example.com/spine,not a key":         `topologyLevels[1]: Invalid value: "not a key": not a valid node label key`,
	} {
		t.Run(value, func(t *testing.T) {
			streams, _, _, _ := genericiooptions.NewTestIOStreams()
			cmd := NewCommand(streams)
			// A server that is not there: the flag must fail before any request.
			cmd.SetArgs([]string{"gangs", "--server=https://127.0.0.1:1", "--topology-levels=" + value})
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one containing %q", err, want)
			}
		})
	}

	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	gangs, _, err := NewCommand(streams).Find([]string{"gangs"})
	if err != nil {
		t.Fatal(err)
	}
	flag := gangs.Flags().Lookup("topology-levels")
	if flag == nil {
		t.Fatal("kubectl berth gangs has no --topology-levels")
	}
	if got, want := flag.Value.String(), strings.Join(topology.DefaultLevels(), ","); got != want {
		t.Errorf("default %q, want the shipped levels %q", got, want)
	}
	if err := gangs.ParseFlags([]string{"--topology-levels=example.com/spine,example.com/leaf"}); err != nil {
		t.Fatal(err)
	}
	if got, want := flag.Value.String(), "example.com/spine,example.com/leaf"; got != want {
		t.Errorf("after the flag: %q, want %q", got, want)
	}
}

// --feature-gates takes the scheduler's value and sets the gates why and gangs judge nodes by; a
// gate Kubernetes does not know fails before any request.
func TestFeatureGatesFlag(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.TaintTolerationComparisonOperators, false)
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	cmd := NewCommand(streams)
	cmd.SetArgs([]string{"why", "p", "--server=https://127.0.0.1:1", "--feature-gates=NoSuchGate=true"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "unrecognized feature gate: NoSuchGate") {
		t.Errorf("error %v, want one naming the unknown gate", err)
	}
	if noderoom.ComparisonOperators() {
		t.Fatal("comparison operators on before the flag")
	}
	why, _, err := NewCommand(streams).Find([]string{"why"})
	if err != nil {
		t.Fatal(err)
	}
	if err := why.ParseFlags([]string{"--feature-gates=TaintTolerationComparisonOperators=true"}); err != nil {
		t.Fatal(err)
	}
	if !noderoom.ComparisonOperators() {
		t.Error("--feature-gates=TaintTolerationComparisonOperators=true left comparison operators off")
	}
}
