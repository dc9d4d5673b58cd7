package quota

import (
	"fmt"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/amount"
)

// FuzzLedger drives the ledger with any sequence of reserve, unreserve, bind, delete and quota
// edits on a few pods in two namespaces, and checks after every step that each namespace's use
// is exactly what its pods hold, what each group's members not yet bound hold likewise, and that a
// reservation never takes use above max.
func FuzzLedger(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{40, 0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19})
	f.Fuzz(func(t *testing.T, ops []byte) {
		l := NewLedger()
		namespaces := []string{"a", "b"}
		type held struct {
			ns, group string
			req       amount.Amount
			bound     bool
		}
		model := map[types.UID]held{}
		pods := make([]*v1.Pod, 8)
		for i := range pods {
			pods[i] = pod(namespaces[i%2], fmt.Sprint(i))
		}
		requestOf := func(i int) amount.Amount {
			return amount.Amount{v1.ResourceCPU: int64(1+i%3) * 1000, amount.Pods: 1000, "aliyun.com/gpu-mem": int64(i%2) * 4000}
		}
		for _, op := range ops {
			i := int(op>>3) % len(pods)
			p := pods[i]
			switch op & 7 {
			case 0, 1: // reserve
				err := l.Reserve(p, fmt.Sprint("g", i%3), requestOf(i))
				if _, ok := model[p.UID]; !ok && err == nil {
					model[p.UID] = held{ns: p.Namespace, group: fmt.Sprint("g", i%3), req: requestOf(i)}
					if view, ok := l.ViewOf(p.Namespace, ""); ok {
						for name, limit := range view.Spec.Max {
							if view.Used[name] > limit {
								t.Fatalf("reserving %s took %s to %d, above max %d", p.Name, name, view.Used[name], limit)
							}
						}
					}
				}
			case 2: // unreserve
				l.Unreserve(p.UID)
				if h, ok := model[p.UID]; ok && !h.bound {
					delete(model, p.UID)
				}
			case 3: // bind what was reserved
				if h, ok := model[p.UID]; ok {
					l.Bound(p, fmt.Sprint("g", i%3), h.req)
					h.bound = true
					model[p.UID] = h
				}
			case 4: // delete
				l.Forget(p.UID)
				delete(model, p.UID)
			case 5: // edit a quota's max
				l.SetQuota(p.Namespace, &Spec{Name: p.Namespace + "/q", Max: amount.Amount{v1.ResourceCPU: int64(i) * 1000, "aliyun.com/gpu-mem": 8000}})
			case 6: // remove a quota
				l.SetQuota(p.Namespace, nil)
			case 7: // a quota that names only GPU memory
				l.SetQuota(p.Namespace, &Spec{Name: p.Namespace + "/q", Min: amount.Amount{"aliyun.com/gpu-mem": 4000}, Max: amount.Amount{"aliyun.com/gpu-mem": int64(i) * 2000}})
			}
			for _, ns := range namespaces {
				want, wantPlacing := amount.Amount{}, map[string]amount.Amount{}
				for _, h := range model {
					if h.ns == ns {
						want.Add(h.req, 1)
						if !h.bound {
							if wantPlacing[h.group] == nil {
								wantPlacing[h.group] = amount.Amount{}
							}
							wantPlacing[h.group].Add(h.req, 1)
						}
					}
				}
				got, placing := amount.Amount{}, map[string]amount.Amount{}
				l.mu.Lock()
				if a, ok := l.namespaces[ns]; ok {
					got = a.used.Clone()
					for g, v := range a.placing {
						placing[g] = v.Clone()
					}
				}
				l.mu.Unlock()
				for _, v := range wantPlacing {
					dropZeros(v)
				}
				if !maps.EqualFunc(placing, wantPlacing, maps.Equal) {
					t.Fatalf("after op %d: namespace %s's groups place %v, their members not bound hold %v", op, ns, placing, wantPlacing)
				}
				for name := range want {
					if want[name] != got[name] {
						t.Fatalf("after op %d: namespace %s uses %v, its pods hold %v", op, ns, got, want)
					}
				}
				for name := range got {
					if want[name] != got[name] {
						t.Fatalf("after op %d: namespace %s uses %v, its pods hold %v", op, ns, got, want)
					}
				}
			}
			if len(l.pods) != len(model) {
				t.Fatalf("ledger holds %d pods, want %d", len(l.pods), len(model))
			}
		}
	})
}
