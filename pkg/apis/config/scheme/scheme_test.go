package scheme

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/berth-sched/berth/pkg/apis/config"
)

// A profile that enables berth's plugins without pluginConfig gets their defaults, and one that
// sets some fields keeps them; this is kube-scheduler's own decoding, with berth's kinds in it.
func TestDecodeDefaultsBerthArgs(t *testing.T) {
	data := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: defaults
  plugins:
    multiPoint:
      enabled: [{name: GPUShare}, {name: Gang}]
- schedulerName: configured
  plugins:
    multiPoint:
      enabled: [{name: GPUShare}, {name: Gang}]
  pluginConfig:
  - name: GPUShare
    args: {scoringStrategy: Spread}
  - name: Gang
    args: {defaultScheduleTimeoutSeconds: 120}
`)
	obj, _, err := serializer.NewCodecFactory(Scheme, serializer.EnableStrict).UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := obj.(*schedconfig.KubeSchedulerConfiguration)
	want := map[string]map[string]any{
		"defaults": {
			"GPUShare": &config.GPUShareArgs{MemoryResource: "aliyun.com/gpu-mem", CountResource: "aliyun.com/gpu-count", ScoringStrategy: config.Binpack},
			"Gang":     &config.GangArgs{DefaultScheduleTimeoutSeconds: 60},
		},
		"configured": {
			"GPUShare": &config.GPUShareArgs{MemoryResource: "aliyun.com/gpu-mem", CountResource: "aliyun.com/gpu-count", ScoringStrategy: config.Spread},
			"Gang":     &config.GangArgs{DefaultScheduleTimeoutSeconds: 120},
		},
	}
	for _, p := range cfg.Profiles {
		got := map[string]any{}
		for _, pc := range p.PluginConfig {
			if pc.Name == "GPUShare" || pc.Name == "Gang" {
				got[pc.Name] = pc.Args
			}
		}
		if diff := cmp.Diff(want[p.SchedulerName], got, cmpopts.IgnoreTypes(metav1.TypeMeta{})); diff != "" {
			t.Errorf("profile %s: berth args (-want +got):\n%s", p.SchedulerName, diff)
		}
	}
}
