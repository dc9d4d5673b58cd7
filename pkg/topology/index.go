package topology

import (
	"sync"

	v1 "k8s.io/api/core/v1"
)

// Index remembers each node's domains at every level. Joining a node's labels into a Domain
// allocates; a scheduling cycle that reads the domain of all 5000 nodes of a cluster for every
// member spent milliseconds on it (BenchmarkTopologyPreFilter in pkg/gang). The index is keyed
// by node object, not name, which also spares hashing a name per node: informers replace a node's
// object on every change and never edit it in place, so a changed node is a new key, and the node
// a cycle's snapshot holds is what decides, never an informer that may lag behind it.
type Index struct {
	levels Levels
	mu     sync.Mutex
	nodes  map[*v1.Node]*indexed
	// epoch counts sweeps; an entry not read since the last sweep is a node that is gone or was
	// replaced.
	epoch uint64
}

type indexed struct {
	// domains[i] is the node's domain of level i, valid when in[i].
	domains []Domain
	in      []bool
	read    uint64
}

// NewIndex returns an empty index of levels.
func NewIndex(levels Levels) *Index {
	return &Index{levels: levels, nodes: map[*v1.Node]*indexed{}}
}

// Levels returns the index's levels.
func (ix *Index) Levels() Levels { return ix.levels }

// DomainOf is Levels.DomainOf for node, remembered.
func (ix *Index) DomainOf(node *v1.Node, level int) (Domain, bool) {
	if level < 0 || level >= len(ix.levels) {
		return "", false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e := ix.nodes[node]
	if e == nil {
		e = &indexed{domains: make([]Domain, len(ix.levels)), in: make([]bool, len(ix.levels))}
		for i := range ix.levels {
			e.domains[i], e.in[i] = ix.levels.DomainOf(node.Labels, i)
		}
		ix.nodes[node] = e
	}
	e.read = ix.epoch
	return e.domains[level], e.in[level]
}

// Sweep forgets the nodes not read since the last sweep, once the index holds well more nodes
// than live, the number a caller that reads every node of the cluster has just read. Deleted and
// replaced node objects are forgotten so, and the index does not grow with every node update.
func (ix *Index) Sweep(live int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.nodes) > live+live/4+16 {
		for n, e := range ix.nodes {
			if e.read != ix.epoch {
				delete(ix.nodes, n)
			}
		}
	}
	ix.epoch++
}
