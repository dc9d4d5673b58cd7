package scheme

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/topology"
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
    args: {scoringStrategy: Fragmentation, noGPUPodScoring: LeastGPUHarm}
  - name: Gang
    args: {defaultScheduleTimeoutSeconds: 120, topologyLevels: [example.com/spine, kubernetes.io/hostname]}
- schedulerName: flat
  plugins:
    multiPoint:
      enabled: [{name: Gang}]
  pluginConfig:
  - name: Gang
    args: {topologyLevels: []}
`)
	obj, _, err := serializer.NewCodecFactory(Scheme, serializer.EnableStrict).UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := obj.(*schedconfig.KubeSchedulerConfiguration)
	want := map[string]map[string]any{
		"defaults": {
			"GPUShare": &config.GPUShareArgs{MemoryResource: "aliyun.com/gpu-mem", CountResource: "aliyun.com/gpu-count", ScoringStrategy: gpu.BinpackName, NoGPUPodScoring: config.NoGPUPodScoringNone},
			"Gang":     &config.GangArgs{DefaultScheduleTimeoutSeconds: 60, TopologyLevels: topology.DefaultLevels()},
		},
		"configured": {
			"GPUShare": &config.GPUShareArgs{MemoryResource: "aliyun.com/gpu-mem", CountResource: "aliyun.com/gpu-count", ScoringStrategy: gpu.FragmentationName, NoGPUPodScoring: config.LeastGPUHarm},
			"Gang":     &config.GangArgs{DefaultScheduleTimeoutSeconds: 120, TopologyLevels: []string{"example.com/spine", "kubernetes.io/hostname"}},
		},
		// An empty list is kept: no levels, where leaving the field out takes the shipped ones.
		"flat": {"Gang": &config.GangArgs{DefaultScheduleTimeoutSeconds: 60, TopologyLevels: []string{}}},
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

// scheduler-plugins' own example configuration for NodeResourcesAllocatable (its README) decodes
// unchanged into berth's args, an entry without args gets scheduler-plugins' defaults, and a
// misspelt field is refused by strict decoding.
func TestDecodeSchedulerPluginsAllocatableArgs(t *testing.T) {
	data := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: scheduler-plugins-example
  plugins:
    score:
      enabled:
      - name: NodeResourcesAllocatable
  pluginConfig:
  - name: NodeResourcesAllocatable
    args:
      mode: Least
      resources:
      - name: cpu
        weight: 1000000
      - name: memory
        weight: 1
- schedulerName: defaults
  plugins:
    score:
      enabled: [{name: NodeResourcesAllocatable}]
- schedulerName: gpus
  plugins:
    score:
      enabled: [{name: NodeResourcesAllocatable}]
  pluginConfig:
  - name: NodeResourcesAllocatable
    args:
      resources: [{name: aliyun.com/gpu-count, weight: 1}]
`)
	codecs := serializer.NewCodecFactory(Scheme, serializer.EnableStrict)
	obj, _, err := codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*config.NodeResourcesAllocatableArgs{
		"scheduler-plugins-example": {Mode: config.Least, Resources: []schedconfig.ResourceSpec{{Name: "cpu", Weight: 1000000}, {Name: "memory", Weight: 1}}},
		"defaults":                  {Mode: config.Least, Resources: []schedconfig.ResourceSpec{{Name: "cpu", Weight: 1 << 20}, {Name: "memory", Weight: 1}}},
		"gpus":                      {Mode: config.Least, Resources: []schedconfig.ResourceSpec{{Name: "aliyun.com/gpu-count", Weight: 1}}},
	}
	for _, p := range obj.(*schedconfig.KubeSchedulerConfiguration).Profiles {
		var got any
		for _, pc := range p.PluginConfig {
			if pc.Name == "NodeResourcesAllocatable" {
				got = pc.Args
			}
		}
		if diff := cmp.Diff(want[p.SchedulerName], got, cmpopts.IgnoreTypes(metav1.TypeMeta{})); diff != "" {
			t.Errorf("profile %s: NodeResourcesAllocatable args (-want +got):\n%s", p.SchedulerName, diff)
		}
	}

	misspelt := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeResourcesAllocatable
    args: {resources: [{name: cpu, wieght: 1}]}
`)
	_, _, err = codecs.UniversalDecoder().Decode(misspelt, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown field "resources[0].wieght"`) {
		t.Errorf("decoding a misspelt field: got %v, want a strict decoding error naming it", err)
	}
}
