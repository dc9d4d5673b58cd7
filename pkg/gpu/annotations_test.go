package gpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

func TestParseAssignment(t *testing.T) {
	tests := []struct {
		in      string
		want    Assignment
		wantErr string
	}{
		{in: "0:16", want: Assignment{{Index: 0, Memory: 16}}},
		{in: "3:8,1:8", want: Assignment{{Index: 1, Memory: 8}, {Index: 3, Memory: 8}}},
		{in: " 0:16 , 1:16", want: Assignment{{Index: 0, Memory: 16}, {Index: 1, Memory: 16}}},
		{in: "", wantErr: "no devices"},
		{in: "0", wantErr: `"0" is not index:memory`},
		{in: "x:1", wantErr: `"x:1": device index must be a whole number from 0 to 255`},
		{in: "-1:1", wantErr: `"-1:1": device index must be a whole number from 0 to 255`},
		{in: "999:1", wantErr: `"999:1": device index must be a whole number from 0 to 255`},
		{in: "0:0", wantErr: `"0:0": memory must be a positive whole number`},
		{in: "0:4Gi", wantErr: `"0:4Gi": memory must be a positive whole number`},
		{in: "0:4,0:4", wantErr: "device 0 appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAssignment(tt.in)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assignment (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if again, err := ParseAssignment(got.String()); err != nil || !cmp.Equal(again, got) {
				t.Errorf("String() = %q does not parse back: %v, %v", got.String(), again, err)
			}
		})
	}
}

func TestAssignmentOf(t *testing.T) {
	tests := []struct {
		name    string
		pod     *v1.Pod
		want    Assignment
		wantOK  bool
		wantErr string
	}{
		{name: "none", pod: st.MakePod().Obj()},
		{
			name:   "berth devices",
			pod:    st.MakePod().Annotation(PodGPUDevicesAnnotation, "0:16,1:16").Obj(),
			want:   Assignment{{Index: 0, Memory: 16}, {Index: 1, Memory: 16}},
			wantOK: true,
		},
		{
			name:   "berth devices win over gpushare",
			pod:    st.MakePod().Annotation(PodGPUDevicesAnnotation, "1:4").Annotation(GPUShareIndexAnnotation, "0").Annotation(GPUSharePodAnnotation, "4").Obj(),
			want:   Assignment{{Index: 1, Memory: 4}},
			wantOK: true,
		},
		{
			name:   "placed by the gpushare extender",
			pod:    st.MakePod().Annotation(GPUShareIndexAnnotation, "2").Annotation(GPUSharePodAnnotation, "6").Obj(),
			want:   Assignment{{Index: 2, Memory: 6}},
			wantOK: true,
		},
		{
			name:    "malformed berth devices",
			pod:     st.MakePod().Annotation(PodGPUDevicesAnnotation, "0-16").Obj(),
			wantOK:  true,
			wantErr: `annotation berth.dev/gpu-devices="0-16": "0-16" is not index:memory`,
		},
		{
			name:    "gpushare index not a number",
			pod:     st.MakePod().Annotation(GPUShareIndexAnnotation, "first").Annotation(GPUSharePodAnnotation, "6").Obj(),
			wantOK:  true,
			wantErr: `annotation ALIYUN_COM_GPU_MEM_IDX="first" is not a device index`,
		},
		{
			name:    "gpushare index without pod memory",
			pod:     st.MakePod().Annotation(GPUShareIndexAnnotation, "0").Obj(),
			wantOK:  true,
			wantErr: `annotation ALIYUN_COM_GPU_MEM_POD="" is not a positive amount of memory`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := AssignmentOf(tt.pod)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assignment (-want +got):\n%s", diff)
			}
			if HasAssignment(tt.pod) != tt.wantOK {
				t.Errorf("HasAssignment = %v, want %v", !tt.wantOK, tt.wantOK)
			}
		})
	}
}
