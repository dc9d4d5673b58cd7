package gpu

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FuzzCacheOps drives the cache with arbitrary sequences of node updates and deletions, reserves,
// unreserves, bindings, foreign pods and pod deletions, and checks after every step that
//   - the memory held on each device is exactly the sum of the shares of the pods holding it;
//   - Reserve never puts a share on a device without that much free, and when it fails it
//     changes nothing;
//   - Unreserve right after Reserve restores exactly the previous state;
//   - unless a foreign pod or a shrinking node said otherwise, no device is over-committed.
//
// The seed corpus runs with every `go test`; `go test -fuzz=FuzzCacheOps` explores further.
func FuzzCacheOps(f *testing.F) {
	f.Add([]byte{
		0, 0, 2, // n0 gets 2 GPUs of 8
		2, 7, 0, // p0 reserves 8 on n0
		2, 7, 1, // p1 reserves 8 on n0
		2, 7, 2, // p2 does not fit
		5, 0, 0, // p0 is bound
		4, 0, 0, // a late Unreserve of p0 keeps it
		4, 0, 1, // p1 is unreserved
		7, 0, 0, // p0 is deleted
	})
	f.Add([]byte{
		0, 1, 0x84, // n1 gets 4 GPUs, sizes by annotation
		18, 1, 9, // p1 reserves 2 GPUs and unreserves at once
		3, 3, 3, // p3 reserves on n1
		6, 1, 19, // a foreign pod on n1
		0, 1, 1, // n1 shrinks to one GPU
		1, 1, 0, // n1 is deleted under its pods
		7, 1, 3, // p3 goes
		0, 1, 4, // n1 returns
	})
	f.Add([]byte{0, 0, 4, 0, 1, 4, 0, 2, 3, 2, 15, 10, 3, 4, 18, 19, 0, 13, 5, 0, 10, 2, 1, 11, 23, 2, 12})
	f.Fuzz(func(t *testing.T, ops []byte) {
		runCacheOps(t, ops)
	})
}

// TestCacheRandomOps runs long random sequences through the same checks.
func TestCacheRandomOps(t *testing.T) {
	for seed := range 100 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		ops := make([]byte, 3*400)
		for i := range ops {
			ops[i] = byte(r.UintN(256))
		}
		t.Run(strconv.Itoa(seed), func(t *testing.T) { runCacheOps(t, ops) })
	}
}

func runCacheOps(t *testing.T, ops []byte) {
	c := NewCache(testResources)
	// external is set once something outside the scheduler's control over-commits a device.
	external := false
	for step := 0; len(ops) >= 3; step, ops = step+1, ops[3:] {
		op, x, y := ops[0], ops[1], ops[2]
		node := fmt.Sprintf("fuzz-n%d", x%3)
		uid := types.UID(fmt.Sprintf("fuzz-p%d", y%8))
		before := snapshot(c)
		what := ""
		switch op % 8 {
		case 0:
			n := fuzzNode(node, x, y)
			what = fmt.Sprintf("update node %s to %v %v", node, n.Status.Capacity, n.Annotations)
			_ = c.AddOrUpdateNode(n) // a malformed annotation is reported; the checks below still hold
			external = external || overCommitted(c)
		case 1:
			what = "delete node " + node
			c.DeleteNode(node)
		case 2, 3:
			req := many(1+int(y>>3)%3, 1+int64(x>>2)%16)
			strategy := Binpack
			if x&1 == 1 {
				strategy = Spread
			}
			what = fmt.Sprintf("reserve %+v for %s on %s by %s", req, uid, node, strategy)
			pod := &v1.Pod{}
			pod.UID = uid
			a, err := c.Reserve(pod, node, req, strategy)
			if err != nil {
				if diff := diffState(before, snapshot(c)); diff != "" {
					t.Fatalf("step %d: %s failed (%v) but changed the state:\n%s", step, what, err, diff)
				}
				break
			}
			checkReservation(t, step, what, before.Nodes[node], a, req)
			if op&0x10 != 0 {
				c.Unreserve(uid)
				if diff := diffState(before, snapshot(c)); diff != "" {
					t.Fatalf("step %d: %s then Unreserve did not restore the state:\n%s", step, what, diff)
				}
			}
		case 4:
			what = "unreserve " + string(uid)
			c.Unreserve(uid)
			if p, ok := before.Pods[uid]; ok && !p.assumed {
				if diff := diffState(before, snapshot(c)); diff != "" {
					t.Fatalf("step %d: %s released a bound pod:\n%s", step, what, diff)
				}
			} else if _, _, ok := c.PodAssignment(uid); ok {
				t.Fatalf("step %d: %s left the reservation", step, what)
			}
		case 5:
			p, ok := before.Pods[uid]
			if !ok {
				break
			}
			what = fmt.Sprintf("bind %s to %s with %s", uid, p.node, p.shares)
			if err := c.AddOrUpdatePod(boundPod(string(uid), p.node, p.shares.String())); err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			after := snapshot(c)
			if diff := diffState(cacheState{Nodes: before.Nodes}, cacheState{Nodes: after.Nodes}); diff != "" {
				t.Fatalf("step %d: %s counted the pod again:\n%s", step, what, diff)
			}
			if after.Pods[uid].assumed {
				t.Fatalf("step %d: %s did not confirm the reservation", step, what)
			}
		case 6:
			devices := fmt.Sprintf("%d:%d", x%5, 1+y%20)
			what = fmt.Sprintf("foreign pod %s bound to %s with %s", uid, node, devices)
			if err := c.AddOrUpdatePod(boundPod(string(uid), node, devices)); err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			external = external || overCommitted(c)
		case 7:
			what = "delete pod " + string(uid)
			if x&1 == 0 {
				c.DeletePod(uid)
			} else {
				done := boundPod(string(uid), node, "0:1")
				done.Status.Phase = v1.PodFailed
				if err := c.AddOrUpdatePod(done); err != nil {
					t.Fatalf("step %d: %s: %v", step, what, err)
				}
			}
			if _, _, ok := c.PodAssignment(uid); ok {
				t.Fatalf("step %d: %s left its devices held", step, what)
			}
		}
		checkConsistent(t, c, fmt.Sprintf("step %d (%s)", step, what))
		if !external && overCommitted(c) {
			t.Fatalf("step %d (%s) over-committed a device: %+v", step, what, snapshot(c).Nodes)
		}
	}
}

// fuzzNode builds a node with 0 to 4 GPUs of 8 or 16, or of mixed sizes by annotation.
func fuzzNode(name string, x, y byte) *v1.Node {
	count := int(y % 5)
	size := 8 * (1 + int(x>>4)&1)
	w := gpuNode(name, strconv.Itoa(count), strconv.Itoa(count*size))
	if y&0x80 != 0 && count > 0 {
		sizes := make([]string, count)
		for i := range sizes {
			sizes[i] = strconv.Itoa(8 * (1 + int(x>>i)&1))
		}
		w = w.Annotation(NodeGPUMemoryAnnotation, strings.Join(sizes, ","))
	}
	return w.Obj()
}

// checkReservation checks that a reservation took only memory that was free before it.
func checkReservation(t *testing.T, step int, what string, before nodeState, a Assignment, req Request) {
	t.Helper()
	if len(a) != req.Count || a.Total() != req.Total {
		t.Fatalf("step %d: %s got %s", step, what, a)
	}
	for i, d := range a {
		if i > 0 && a[i-1].Index >= d.Index {
			t.Fatalf("step %d: %s got devices out of order or twice: %s", step, what, a)
		}
		if d.Index >= len(before.capacity) || before.used[d.Index]+d.Memory > before.capacity[d.Index] {
			t.Fatalf("step %d: %s put %d on device %d with capacity %v and used %v", step, what, d.Memory, d.Index, before.capacity, before.used)
		}
	}
}

// checkConsistent checks the cache's books: every device's use is the sum of its pods' shares.
func checkConsistent(t *testing.T, c *Cache, where string) {
	t.Helper()
	s := snapshot(c)
	want := map[string][]int64{}
	pods := map[string]int{}
	for uid, p := range s.Pods {
		if _, ok := s.Nodes[p.node]; !ok {
			t.Fatalf("%s: pod %s holds devices on %s, which the cache does not have", where, uid, p.node)
		}
		pods[p.node]++
		for _, d := range p.shares {
			for len(want[p.node]) <= d.Index {
				want[p.node] = append(want[p.node], 0)
			}
			want[p.node][d.Index] += d.Memory
		}
	}
	for name, n := range s.Nodes {
		if !n.known && n.pods == 0 {
			t.Fatalf("%s: node %s is neither known nor holds pods", where, name)
		}
		if n.pods != pods[name] {
			t.Fatalf("%s: node %s counts %d pods, %d hold devices there", where, name, n.pods, pods[name])
		}
		if len(n.used) < len(n.capacity) {
			t.Fatalf("%s: node %s tracks use of %d devices of %d", where, name, len(n.used), len(n.capacity))
		}
		for i, u := range n.used {
			var w int64
			if i < len(want[name]) {
				w = want[name][i]
			}
			if u != w {
				t.Fatalf("%s: node %s device %d has %d used, its pods hold %d", where, name, i, u, w)
			}
		}
	}
}

func overCommitted(c *Cache) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, n := range c.nodes {
		for i, capacity := range n.capacity {
			if n.used[i] > capacity {
				return true
			}
		}
	}
	return false
}
