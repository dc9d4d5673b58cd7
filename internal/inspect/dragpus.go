package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-sched/berth/pkg/dra"
)

// DRANode is one node's GPUs as its DRA driver publishes them. Memory is in bytes.
type DRANode struct {
	Name string   `json:"name"`
	GPUs []DRAGPU `json:"gpus"`
	// AlsoGPUShare is true when the node advertises gpushare GPUs too, which berth reports: it
	// counts that node's gpushare GPUs only.
	AlsoGPUShare bool  `json:"alsoGPUShare,omitempty"`
	Total        Usage `json:"total"`
}

// DRAGPU is one physical GPU: a device, or the counter set its MIG partitions share.
type DRAGPU struct {
	Device   string     `json:"device"`
	Product  string     `json:"product,omitempty"`
	Capacity int64      `json:"capacity"`
	Used     int64      `json:"used"`
	Free     int64      `json:"free"`
	Claims   []DRAClaim `json:"claims"`
}

// DRAClaim is one allocated claim's use of a GPU and the pods it is reserved for.
type DRAClaim struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Device    string   `json:"device"`
	Memory    int64    `json:"memory"`
	Pods      []string `json:"pods"`
}

// DRAGPUsOf turns the core's view (dra.Inventory) into the report's rows, nodes by name. Nodes
// in gpushare are those that advertise gpushare GPUs too.
func DRAGPUsOf(nodes map[string]*dra.NodeGPUs, gpushare map[string]bool) []DRANode {
	var out []DRANode
	for _, n := range nodes {
		rn := DRANode{Name: n.Node, AlsoGPUShare: gpushare[n.Node], GPUs: []DRAGPU{}}
		for _, g := range n.GPUs {
			rg := DRAGPU{Device: g.Name, Product: g.ProductName, Capacity: g.Memory, Used: g.Used, Free: g.Free(), Claims: []DRAClaim{}}
			for _, h := range g.Holders {
				rg.Claims = append(rg.Claims, DRAClaim{Namespace: h.Claim.Namespace, Name: h.Claim.Name, Device: h.Device, Memory: h.Memory, Pods: append([]string{}, h.Pods...)})
			}
			rn.GPUs = append(rn.GPUs, rg)
			rn.Total.add(Usage{GPUs: 1, Capacity: g.Memory, Used: g.Used, Free: g.Free()})
		}
		out = append(out, rn)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// listDRA reads the DRA GPUs of every node, or of node's only; a cluster that does not serve
// resource.k8s.io/v1 has none, and a user who may not list slices and claims sees the gpushare
// GPUs with a problem saying so.
func listDRA(ctx context.Context, client kubernetes.Interface, node string) (map[string]*dra.NodeGPUs, []string, error) {
	slices, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil, nil
	}
	if apierrors.IsForbidden(err) {
		return nil, []string{"DRA GPUs not shown: " + err.Error()}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	claims, err := client.ResourceV1().ResourceClaims(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if apierrors.IsForbidden(err) {
		return nil, []string{"DRA GPUs not shown: " + err.Error()}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing ResourceClaims: %w", err)
	}
	sp := make([]*resourceapi.ResourceSlice, len(slices.Items))
	for i := range slices.Items {
		sp[i] = &slices.Items[i]
	}
	cp := make([]*resourceapi.ResourceClaim, len(claims.Items))
	for i := range claims.Items {
		cp[i] = &claims.Items[i]
	}
	nodes, errs := dra.Inventory(dra.DefaultConfig(), sp, cp)
	var problems []string
	for _, e := range errs {
		if node == "" || e.Node == node {
			problems = append(problems, fmt.Sprintf("node %s: %v; left out", e.Node, e))
		}
	}
	if node != "" {
		for name := range nodes {
			if name != node {
				delete(nodes, name)
			}
		}
	}
	return nodes, problems, nil
}

// writeDRATable prints one row per DRA GPU with its claims and their pods, and a total per node.
func writeDRATable(w io.Writer, nodes []DRANode) error {
	if len(nodes) == 0 {
		return nil
	}
	fmt.Fprintf(w, "DRA GPUs (driver %s):\n", dra.DefaultDriver)
	t := newTable(w, "NODE", "DEVICE", "USED/TOTAL", "FREE", "CLAIMS (PODS)")
	for _, n := range nodes {
		for i, g := range n.GPUs {
			name := ""
			if i == 0 {
				name = n.Name
				if n.AlsoGPUShare {
					name += " (also gpushare)"
				}
			}
			var claims []string
			for _, c := range g.Claims {
				claims = append(claims, fmt.Sprintf("%s/%s %s (%s)", c.Namespace, c.Name, byteSize(c.Memory), strings.Join(c.Pods, ", ")))
			}
			device := g.Device
			if g.Product != "" {
				device += " " + g.Product
			}
			t.row(name, device, byteSize(g.Used)+"/"+byteSize(g.Capacity), byteSize(g.Free), strings.Join(claims, "; "))
		}
		t.row("", "total", byteSize(n.Total.Used)+"/"+byteSize(n.Total.Capacity), byteSize(n.Total.Free), "")
	}
	return t.flush()
}

func byteSize(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
