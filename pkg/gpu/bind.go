package gpu

import (
	"context"
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Binding is the Binding that places pod on node and records a, the devices it holds there, on the
// pod. The API server copies a Binding's annotations onto the pod in the same update that sets its
// node, with the Binding's UID as a precondition: nobody ever sees the pod bound without its
// devices, or with its devices and unbound, and it cannot land on a pod re-created under the same
// name. capacity is the memory of each of the node's GPUs (DevicesOf).
//
// Single-GPU pods get the gpushare annotations as well, so that the unchanged gpushare device
// plugin hands them their GPU. A Binding can add and overwrite annotations but not remove them:
// gpushare annotations that a multi-GPU pod already carries (written by hand, or by an older
// scheduler) are overwritten with empty values, which the device plugin does not take for a GPU.
func Binding(pod *v1.Pod, node string, a Assignment, capacity []int64, now time.Time) (*v1.Binding, error) {
	if len(a) == 0 {
		return nil, fmt.Errorf("empty assignment")
	}
	ann := map[string]string{PodGPUDevicesAnnotation: a.String()}
	if len(a) == 1 {
		d := a[0]
		if d.Index >= len(capacity) {
			return nil, fmt.Errorf("device %d is not on node %s, which has %d", d.Index, node, len(capacity))
		}
		ann[GPUShareIndexAnnotation] = strconv.Itoa(d.Index)
		ann[GPUShareDeviceAnnotation] = strconv.FormatInt(capacity[d.Index], 10)
		ann[GPUSharePodAnnotation] = strconv.FormatInt(d.Memory, 10)
		ann[GPUShareAssignedAnnotation] = "false"
		ann[GPUShareAssumeTimeAnnotation] = strconv.FormatInt(now.UnixNano(), 10)
	} else {
		for _, k := range gpushareAnnotations {
			if _, ok := pod.Annotations[k]; ok {
				ann[k] = ""
			}
		}
	}
	return &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Annotations: ann},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}, nil
}

var gpushareAnnotations = []string{GPUShareIndexAnnotation, GPUShareDeviceAnnotation, GPUSharePodAnnotation,
	GPUShareAssignedAnnotation, GPUShareAssumeTimeAnnotation}

// resolveTimeout bounds how long Bind looks at the pod to learn whether a binding whose answer was
// lost went through.
const resolveTimeout = 10 * time.Second

// Bind binds pod to node with the devices a in one request (Binding): the one write berth makes for
// a GPU pod, shared by the plugin and the extender. It returns nil once the pod is bound to node
// with these devices.
//
// When the request fails, the API server may still have applied it: a timeout or a dropped
// connection after the request was sent says nothing. Bind then reads the pod back: bound to node
// with a's devices means the binding went through and the devices stay held; not bound, or the
// pod gone, means it did not; anything else is an error. It never writes to a pod that is already
// bound.
func Bind(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, node string, a Assignment, capacity []int64, now time.Time) error {
	b, err := Binding(pod, node, a, capacity, now)
	if err != nil {
		return err
	}
	bindErr := client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	if bindErr == nil {
		return nil
	}
	bound, err := boundTo(ctx, client, pod, node, a)
	switch {
	case err != nil:
		return fmt.Errorf("binding pod %s to node %s with GPUs %s: %w; whether it was bound is unknown: %v", klog.KObj(pod), node, a, bindErr, err)
	case bound:
		klog.FromContext(ctx).V(2).Info("Binding reported an error but went through", "pod", klog.KObj(pod), "node", node, "err", bindErr)
		return nil
	default:
		return fmt.Errorf("binding pod %s to node %s with GPUs %s: %w", klog.KObj(pod), node, a, bindErr)
	}
}

// boundTo reads the pod from the API server, retrying while it cannot, and reports whether it is
// bound to node with the devices a. A pod bound elsewhere, with other devices, or replaced by a
// pod of another UID, is an error.
func boundTo(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, node string, a Assignment) (bool, error) {
	var (
		cur     *v1.Pod
		lastErr error
	)
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	err := wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 50 * time.Millisecond, Factor: 2, Steps: 8, Cap: 2 * time.Second},
		func(ctx context.Context) (bool, error) {
			cur, lastErr = client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			// Not found is an answer: the pod is gone, so it holds nothing, and retrying would
			// keep its devices and quota reserved for a pod that no longer exists.
			return lastErr == nil || apierrors.IsNotFound(lastErr), nil
		})
	if apierrors.IsNotFound(lastErr) {
		return false, nil
	}
	if err != nil {
		if lastErr != nil {
			err = lastErr
		}
		return false, fmt.Errorf("reading the pod back: %w", err)
	}
	switch {
	case cur.UID != pod.UID:
		return false, fmt.Errorf("pod was replaced by one with UID %s", cur.UID)
	case cur.Spec.NodeName == "":
		return false, nil
	case cur.Spec.NodeName != node:
		return false, fmt.Errorf("pod is bound to node %s", cur.Spec.NodeName)
	case cur.Annotations[PodGPUDevicesAnnotation] != a.String():
		return false, fmt.Errorf("pod is bound to node %s with GPUs %q, not %s", node, cur.Annotations[PodGPUDevicesAnnotation], a)
	}
	return true, nil
}
