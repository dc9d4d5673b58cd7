package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

func recorded(t *testing.T, name string) func() (string, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "pkg", "gpu", "testdata", "links", name))
	if err != nil {
		t.Fatal(err)
	}
	return func() (string, error) { return string(b), nil }
}

func TestAnnotate(t *testing.T) {
	ctx := context.Background()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", Annotations: map[string]string{"other": "kept"}}}
	cs := fake.NewClientset(node)
	patches := 0
	cs.PrependReactor("patch", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		patches++
		return false, nil, nil
	})

	for _, name := range []string{"pcie-8gpu-2numa.txt", "nvswitch-8gpu.txt", "nvlink-pairs-4gpu.txt"} {
		read := recorded(t, name)
		if err := annotate(ctx, cs, "gpu-1", read); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := cs.CoreV1().Nodes().Get(ctx, "gpu-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		value := got.Annotations[gpu.NodeGPULinksAnnotation]
		want, _ := read()
		if value != strings.TrimRight(want, "\n") {
			t.Errorf("%s: annotation %q, want the matrix as printed", name, value)
		}
		if _, err := gpu.ParseLinks(value); err != nil {
			t.Errorf("%s: berth cannot read the annotation: %v", name, err)
		}
		if got.Annotations["other"] != "kept" {
			t.Errorf("other annotations lost: %v", got.Annotations)
		}
	}
	if patches != 3 {
		t.Errorf("%d patches, want 3", patches)
	}
	// The same matrix again: nothing to write.
	if err := annotate(ctx, cs, "gpu-1", recorded(t, "nvlink-pairs-4gpu.txt")); err != nil || patches != 3 {
		t.Errorf("unchanged matrix: %v, %d patches", err, patches)
	}
	// What berth could not read is never written, nor is a failure of nvidia-smi.
	for _, read := range []func() (string, error){
		func() (string, error) {
			return "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", nil
		},
		func() (string, error) { return "", errors.New("exit status 9") },
	} {
		if err := annotate(ctx, cs, "gpu-1", read); err == nil || patches != 3 {
			t.Errorf("bad matrix: %v, %d patches", err, patches)
		}
	}
	got, _ := cs.CoreV1().Nodes().Get(ctx, "gpu-1", metav1.GetOptions{})
	if _, err := gpu.ParseLinks(got.Annotations[gpu.NodeGPULinksAnnotation]); err != nil {
		t.Errorf("the annotation was damaged: %v", err)
	}
}

func TestMatrixDropsTerminalEscapes(t *testing.T) {
	read := recorded(t, "nvlink-pairs-4gpu.txt")
	plain, _ := read()
	got, err := matrix(func() (string, error) { return "\x1b[4m" + strings.Replace(plain, "\n", "\x1b[0m\n", 1), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimRight(plain, "\n") {
		t.Errorf("matrix %q", got)
	}
}
