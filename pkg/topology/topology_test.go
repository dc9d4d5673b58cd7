package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

var levels = Levels(DefaultLevels())

// node is a node with cpu millicores and pods slots free, and room for members of one core each.
func node(name, zone, block, rack string, cpu, pods int64) Node {
	labels := map[string]string{HostLabel: name}
	for k, v := range map[string]string{ZoneLabel: zone, BlockLabel: block, RackLabel: rack} {
		if v != "" {
			labels[k] = v
		}
	}
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	return Node{Node: n, Room: amount.Fits(amount.Amount{"cpu": cpu, amount.Pods: pods * amount.One}, amount.Amount{"cpu": 1000})}
}

// A domain is the tuple of values down to its level: same-named racks in two blocks differ; a node
// without the level's label has no domain there, one without an outer label still has one.
func TestDomainOf(t *testing.T) {
	a := node("a", "z1", "b1", "r1", 0, 0).Node.Labels
	b := node("b", "z1", "b2", "r1", 0, 0).Node.Labels
	noRack := node("c", "z1", "b1", "", 0, 0).Node.Labels
	noZone := node("d", "", "b1", "r1", 0, 0).Node.Labels
	rack := levels.Index(RackLabel)
	da, _ := levels.DomainOf(a, rack)
	db, _ := levels.DomainOf(b, rack)
	if da != "z1/b1/r1" || da == db {
		t.Errorf("racks r1 of blocks b1 and b2: %q and %q, want two domains, the first z1/b1/r1", da, db)
	}
	if d, ok := levels.DomainOf(noRack, rack); ok {
		t.Errorf("a node without a rack label is in rack domain %q", d)
	}
	if d, ok := levels.DomainOf(noRack, levels.Index(BlockLabel)); !ok || d != "z1/b1" {
		t.Errorf("its block domain is %q, %v; want z1/b1", d, ok)
	}
	if d, ok := levels.DomainOf(noZone, rack); !ok || d != "/b1/r1" {
		t.Errorf("a node without a zone label: rack domain %q, %v; want /b1/r1", d, ok)
	}
	if _, ok := levels.DomainOf(a, len(levels)); ok {
		t.Error("a domain of a level that does not exist")
	}
}

func TestConstraintOf(t *testing.T) {
	for _, tt := range []struct {
		ann     map[string]string
		want    Constraint
		ok      bool
		wantErr string
	}{
		{ann: nil},
		{ann: map[string]string{RequiredAnnotation: RackLabel}, want: Constraint{Level: 2, Key: RackLabel, Required: true}, ok: true},
		{ann: map[string]string{PreferredAnnotation: ZoneLabel}, want: Constraint{Level: 0, Key: ZoneLabel}, ok: true},
		{ann: map[string]string{RequiredAnnotation: "example.com/spine"}, wantErr: RequiredAnnotation + ` names "example.com/spine"`},
		{ann: map[string]string{PreferredAnnotation: ""}, wantErr: PreferredAnnotation + ` names ""`},
		{ann: map[string]string{RequiredAnnotation: RackLabel, PreferredAnnotation: RackLabel}, wantErr: "both set"},
	} {
		c, ok, err := levels.ConstraintOf(tt.ann)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: error %v, want one saying %q", tt.ann, err, tt.wantErr)
			}
			continue
		}
		if err != nil || ok != tt.ok || c != tt.want {
			t.Errorf("%v: %+v, %v, %v; want %+v, %v", tt.ann, c, ok, err, tt.want, tt.ok)
		}
	}
}

// Two blocks of two racks: b1/r1 has room for 4 one-cpu members, b1/r2 for 2, b2/r1 for 8, and the
// hostless node n9 sits in block b2 without a rack.
func cluster() []Node {
	return []Node{
		node("n1", "z", "b1", "r1", 2000, 110), node("n2", "z", "b1", "r1", 2000, 110),
		node("n3", "z", "b1", "r2", 2000, 110),
		node("n4", "z", "b2", "r1", 4000, 110), node("n5", "z", "b2", "r1", 4000, 110),
		node("n9", "z", "b2", "", 4000, 110),
	}
}

func TestChoose(t *testing.T) {
	rack := Constraint{Level: 2, Key: RackLabel, Required: true}
	preferRack := Constraint{Level: 2, Key: RackLabel}
	for _, tt := range []struct {
		name string
		c    Constraint
		g    Group
		want *Choice
		err  *NoRoom
	}{
		{"least room left over", rack, Group{Count: 2}, &Choice{Level: 2, Domain: "z/b1/r2", Room: 0}, nil},
		{"the next smallest that holds it", rack, Group{Count: 3}, &Choice{Level: 2, Domain: "z/b1/r1", Room: 1}, nil},
		{"the only one", rack, Group{Count: 7}, &Choice{Level: 2, Domain: "z/b2/r1", Room: 1}, nil},
		{"required, none holds it", rack, Group{Count: 9}, nil, &NoRoom{Key: RackLabel, Count: 9, Largest: 8}},
		{"preferred falls back to the block", preferRack, Group{Count: 9}, &Choice{Level: 1, Domain: "z/b2", Room: 3}, nil},
		{"preferred falls back to anywhere", preferRack, Group{Count: 30}, nil, nil},
		{"placed members fix the domain", rack, Group{Count: 1, Placed: []string{"n4"}}, &Choice{Level: 2, Domain: "z/b2/r1", Room: 7}, nil},
		{"the fixed domain is full", rack, Group{Count: 3, Placed: []string{"n3"}}, nil, &NoRoom{Key: RackLabel, Count: 3, Largest: 2, Fixed: true, Domain: "z/b1/r2"}},
		{"placed members in two racks", rack, Group{Count: 1, Placed: []string{"n1", "n3"}}, nil, &NoRoom{Key: RackLabel, Count: 1, Split: true}},
		{"a placed member on a node without the level", rack, Group{Count: 1, Placed: []string{"n9"}}, nil, &NoRoom{Key: RackLabel, Count: 1, Split: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewIndex(levels).Choose(tt.c, cluster(), tt.g)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("choice (-want +got):\n%s", diff)
			}
			var noRoom *NoRoom
			if tt.err == nil && err != nil || tt.err != nil && (!errors.As(err, &noRoom) || *noRoom != *tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
		})
	}
}

// The index answers as Levels.DomainOf does, computes a node's domains again only when the node
// is a new object (as an informer delivers a changed node), and a sweep forgets nodes not read
// since the last one once it holds too many.
func TestIndex(t *testing.T) {
	ix := NewIndex(levels)
	n := node("n1", "z", "b1", "r1", 0, 0).Node
	for level := range levels {
		want, wantOK := levels.DomainOf(n.Labels, level)
		if got, ok := ix.DomainOf(n, level); got != want || ok != wantOK {
			t.Errorf("level %d: %q %v, want %q %v", level, got, ok, want, wantOK)
		}
	}
	moved := n.DeepCopy()
	moved.Labels[RackLabel] = "r2"
	if got, _ := ix.DomainOf(moved, 2); got != "z/b1/r2" {
		t.Errorf("after the node moved: %q, want z/b1/r2", got)
	}
	// Edited in place, which informers never do: the index keeps what it computed.
	moved.Labels[RackLabel] = "r3"
	if got, _ := ix.DomainOf(moved, 2); got != "z/b1/r2" {
		t.Errorf("the same object read again: %q, want the remembered z/b1/r2", got)
	}
	if _, ok := ix.DomainOf(moved, len(levels)); ok {
		t.Error("a level past the last has a domain")
	}

	for i := range 40 {
		ix.DomainOf(node(fmt.Sprintf("gone-%d", i), "z", "b1", "r1", 0, 0).Node, 0)
	}
	ix.Sweep(42)
	if len(ix.nodes) != 42 {
		t.Fatalf("swept with 42 live nodes of 42 (n1 before and after it moved, 40 others): %d left", len(ix.nodes))
	}
	ix.DomainOf(moved, 0)
	ix.Sweep(1)
	if len(ix.nodes) != 1 || ix.nodes[moved] == nil {
		t.Errorf("after a sweep with only n1 read: %d nodes left, want n1's current object alone", len(ix.nodes))
	}
}

// A group that may preempt goes to the domain where evictions must make room for the fewest of its
// members, whatever the names; then to the one with the least left over; a domain that cannot hold
// it even after evictions is never taken.
func TestChooseToPreempt(t *testing.T) {
	rack := Constraint{Level: 2, Key: RackLabel, Required: true}
	racks := func(r1Room, r1Evictable, r2Room, r2Evictable int) []Node {
		a, b := node("a", "z", "b1", "r1", 0, 0), node("b", "z", "b1", "r2", 0, 0)
		a.Room, a.Evictable, b.Room, b.Evictable = r1Room, r1Evictable, r2Room, r2Evictable
		return []Node{a, b}
	}
	for _, tt := range []struct {
		name  string
		nodes []Node
		want  *Choice
		err   *NoRoom
	}{
		{"the second rack needs fewer evictions", racks(1, 3, 2, 2), &Choice{Level: 2, Domain: "z/b1/r2", Room: 0}, nil},
		{"the first rack needs fewer evictions", racks(2, 2, 1, 3), &Choice{Level: 2, Domain: "z/b1/r1", Room: 0}, nil},
		{"equal evictions: the least left over", racks(2, 4, 2, 2), &Choice{Level: 2, Domain: "z/b1/r2", Room: 0}, nil},
		{"the rack with room for most cannot hold it all", racks(3, 0, 0, 4), &Choice{Level: 2, Domain: "z/b1/r2", Room: 0}, nil},
		{"no rack holds it even after evictions", racks(1, 2, 2, 1), nil, &NoRoom{Key: RackLabel, Count: 4, Largest: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewIndex(levels).ChooseToPreempt(rack, tt.nodes, Group{Count: 4})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("choice (-want +got):\n%s", diff)
			}
			var noRoom *NoRoom
			if tt.err == nil && err != nil || tt.err != nil && (!errors.As(err, &noRoom) || *noRoom != *tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			// Choose reads Room alone: no rack has room for 4 without evictions.
			if c, err := NewIndex(levels).Choose(rack, tt.nodes, Group{Count: 4}); c != nil || err == nil {
				t.Errorf("Choose without evictions: %+v, %v; want no room", c, err)
			}
		})
	}
}
