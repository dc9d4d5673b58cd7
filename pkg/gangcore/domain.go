package gangcore

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/topology"
)

// A group placed in one topology domain (pkg/gang's topology.go chooses it) keeps it from its
// first member's Reserve until the last reservation goes: its later members go there too.

// NoteDomain records the domain a member was reserved in as its group's, unless the group has one.
func (m *Manager) NoteDomain(key types.NamespacedName, choice *topology.Choice) {
	if choice == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok && g.domain == nil && len(g.reserved) > 0 {
		c := *choice
		g.domain = &c
	}
}

// Domain returns the group's recorded domain, if it has one.
func (m *Manager) Domain(key types.NamespacedName) *topology.Choice {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok && g.domain != nil {
		c := *g.domain
		return &c
	}
	return nil
}

// dropDomainIfEmpty forgets the group's domain once no member holds a place by reservation
// (members a failed round released do not, though their reservations last until their Unreserve):
// the next round chooses again. The caller holds the manager's lock.
func (g *group) dropDomainIfEmpty() {
	for uid := range g.reserved {
		if g.placed.Has(uid) {
			return
		}
	}
	g.domain = nil
}
