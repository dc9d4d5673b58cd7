package topology

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var levels = Levels(DefaultLevels())

func node(name, zone, block, rack string, cpu, pods int64) Node {
	labels := map[string]string{HostLabel: name}
	for k, v := range map[string]string{ZoneLabel: zone, BlockLabel: block, RackLabel: rack} {
		if v != "" {
			labels[k] = v
		}
	}
	return Node{Name: name, Labels: labels, Free: Resources{"cpu": cpu, Pods: pods}}
}

// A domain is the tuple of values down to its level: same-named racks in two blocks differ; a node
// without the level's label has no domain there, one without an outer label still has one.
func TestDomainOf(t *testing.T) {
	a := node("a", "z1", "b1", "r1", 0, 0).Labels
	b := node("b", "z1", "b2", "r1", 0, 0).Labels
	noRack := node("c", "z1", "b1", "", 0, 0).Labels
	noZone := node("d", "", "b1", "r1", 0, 0).Labels
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

func TestFits(t *testing.T) {
	free := Resources{"cpu": 8000, "memory": 10, Pods: 3}
	for _, tt := range []struct {
		member Resources
		want   int
	}{
		{Resources{"cpu": 2000}, 3},              // pod slots bound it
		{Resources{"cpu": 3000}, 2},              // cpu does
		{Resources{"cpu": 1000, "memory": 6}, 1}, // memory does
		{Resources{"nvidia.com/gpu": 1}, 0},      // none of it free
		{Resources{}, 3},
	} {
		if got := Fits(free, tt.member); got != tt.want {
			t.Errorf("Fits(%v) = %d, want %d", tt.member, got, tt.want)
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
	one := Resources{"cpu": 1000}
	rack := Constraint{Level: 2, Key: RackLabel, Required: true}
	preferRack := Constraint{Level: 2, Key: RackLabel}
	for _, tt := range []struct {
		name string
		c    Constraint
		g    Group
		want *Choice
		err  *NoRoom
	}{
		{"least room left over", rack, Group{Count: 2, Member: one}, &Choice{Level: 2, Domain: "z/b1/r2", Room: 0}, nil},
		{"the next smallest that holds it", rack, Group{Count: 3, Member: one}, &Choice{Level: 2, Domain: "z/b1/r1", Room: 1}, nil},
		{"the only one", rack, Group{Count: 7, Member: one}, &Choice{Level: 2, Domain: "z/b2/r1", Room: 1}, nil},
		{"required, none holds it", rack, Group{Count: 9, Member: one}, nil, &NoRoom{Key: RackLabel, Count: 9, Largest: 8}},
		{"preferred falls back to the block", preferRack, Group{Count: 9, Member: one}, &Choice{Level: 1, Domain: "z/b2", Room: 3}, nil},
		{"preferred falls back to anywhere", preferRack, Group{Count: 30, Member: one}, nil, nil},
		{"placed members fix the domain", rack, Group{Count: 1, Member: one, Placed: []string{"n4"}}, &Choice{Level: 2, Domain: "z/b2/r1", Room: 7}, nil},
		{"the fixed domain is full", rack, Group{Count: 3, Member: one, Placed: []string{"n3"}}, nil, &NoRoom{Key: RackLabel, Count: 3, Largest: 2}},
		{"placed members in two racks", rack, Group{Count: 1, Member: one, Placed: []string{"n1", "n3"}}, nil, &NoRoom{Key: RackLabel, Count: 1, Split: true}},
		{"a placed member on a node without the level", rack, Group{Count: 1, Member: one, Placed: []string{"n9"}}, nil, &NoRoom{Key: RackLabel, Count: 1, Split: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := levels.Choose(tt.c, cluster(), tt.g)
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
