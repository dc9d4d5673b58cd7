package dra

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
)

// Reporter puts problems with a node's DRA GPUs where the node's owner looks: a Warning event on
// the Node and a log line, each once per process (every profile's plugin shares one Reporter's
// memory of what was said).
type Reporter struct {
	Recorder events.EventRecorder
	Logger   klog.Logger
}

var reported sync.Map // key -> struct{}

// Event reasons.
const (
	ReasonInvalidSlice = "InvalidGPUResourceSlice"
	ReasonBothWays     = "GPUsAdvertisedTwice"
)

// SliceErrors reports each malformed device of node's slices once per slice generation.
func (r Reporter) SliceErrors(node *v1.Node, generation map[string]int64, errs []*SliceError) {
	for _, e := range errs {
		key := fmt.Sprintf("slice\x00%s\x00%d\x00%s", e.Slice, generation[e.Slice], e.Field)
		if _, seen := reported.LoadOrStore(key, struct{}{}); seen {
			continue
		}
		r.Logger.Info("ResourceSlice device is malformed and left out of berth's GPU view", "node", klog.KObj(node), "resourceSlice", e.Slice, "field", e.Field, "problem", e.Detail)
		r.event(node, ReasonInvalidSlice, e.Error()+"; berth leaves the device out of its GPU view")
	}
}

// BothWays reports, once, a node that publishes GPUs both through the device plugin (gpushare's
// extended resources) and through DRA slices of the GPU driver; Clear forgets it once it stops.
func (r Reporter) BothWays(node *v1.Node, driver string, resource v1.ResourceName) {
	if _, seen := reported.LoadOrStore("both\x00"+node.Name, struct{}{}); seen {
		return
	}
	msg := fmt.Sprintf("node advertises GPUs both as %s (device plugin) and as DRA devices of driver %s: berth counts its gpushare GPUs only and gives DRA GPU pods its lowest GPU score here; serve GPUs one way per node", resource, driver)
	r.Logger.Info("Node advertises GPUs two ways", "node", klog.KObj(node), "resource", resource, "driver", driver)
	r.event(node, ReasonBothWays, msg)
}

// Clear forgets that node advertised GPUs both ways, so that it is reported again if it does so again.
func (r Reporter) Clear(node string) { reported.Delete("both\x00" + node) }

func (r Reporter) event(node *v1.Node, reason, msg string) {
	if r.Recorder == nil {
		return
	}
	ref := node.DeepCopy()
	ref.APIVersion, ref.Kind = "v1", "Node"
	r.Recorder.Eventf(ref, nil, v1.EventTypeWarning, reason, "Scheduling", "%s", msg)
}
