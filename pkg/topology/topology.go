// Package topology is what berth knows of a cluster's network topology between nodes: levels named
// by node label keys, outermost first (zone, block, rack, host), the domains those labels make, and
// a pod group's constraint to one domain of a level. It chooses the domain a group goes to, from
// each domain's free room, with no knowledge of the scheduler: Gang feeds it the snapshot's nodes,
// kubectl berth the API's.
package topology

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The PodGroup annotations that ask for a level, by its node label key (Kueue TAS's names).
const (
	RequiredAnnotation  = "berth.dev/topology-required"
	PreferredAnnotation = "berth.dev/topology-preferred"
)

// The levels of the shipped profile.
const (
	ZoneLabel  = "topology.kubernetes.io/zone"
	BlockLabel = "berth.dev/block"
	RackLabel  = "berth.dev/rack"
	HostLabel  = "kubernetes.io/hostname"
)

// DefaultLevels are the levels of the shipped profile. A function, so no caller can change them.
func DefaultLevels() []string { return []string{ZoneLabel, BlockLabel, RackLabel, HostLabel} }

// Levels are node label keys, outermost first.
type Levels []string

// ValidateLevels checks levels at path: each a valid node label key, none twice. Gang's
// topologyLevels and kubectl berth gangs --topology-levels are checked by it.
func ValidateLevels(path *field.Path, levels []string) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, key := range levels {
		p := path.Index(i)
		switch {
		case seen[key]:
			errs = append(errs, field.Duplicate(p, key))
		case key == "":
			errs = append(errs, field.Required(p, "a node label key"))
		default:
			for _, msg := range validation.IsQualifiedName(key) {
				errs = append(errs, field.Invalid(p, key, "not a valid node label key: "+msg))
			}
		}
		seen[key] = true
	}
	return errs
}

// Index is the position of key among the levels, or -1.
func (l Levels) Index(key string) int {
	for i, k := range l {
		if k == key {
			return i
		}
	}
	return -1
}

// Domain names one domain of a level: the label values from the outermost level down to that
// level, joined by "/" (label values cannot hold it). Two racks of one name in two blocks are two
// domains, as in Kueue TAS.
type Domain string

// DomainOf returns the domain of level a node with labels is in. A node without the level's label
// is in no domain of that level; a missing outer label counts as an empty value, so a cluster that
// labels racks but not zones still has racks.
func (l Levels) DomainOf(labels map[string]string, level int) (Domain, bool) {
	if level < 0 || level >= len(l) {
		return "", false
	}
	if _, ok := labels[l[level]]; !ok {
		return "", false
	}
	values := make([]string, level+1)
	for i := range values {
		values[i] = labels[l[i]]
	}
	return Domain(strings.Join(values, "/")), true
}

// Constraint is what a PodGroup asks: its members in one domain of Level.
type Constraint struct {
	// Level is the index of Key in the levels.
	Level int
	// Key is the level's node label key, as the annotation names it.
	Key string
	// Required: no member is bound unless all fit one domain of Level. Otherwise the group
	// prefers one, then the smallest enclosing level's, then takes any node.
	Required bool
}

// Mode is "required" or "preferred", as a person reads it.
func (c Constraint) Mode() string {
	if c.Required {
		return "required"
	}
	return "preferred"
}

// ConstraintOf reads a PodGroup's annotations. It returns false when the group asks for no level,
// and an error naming the annotation when it asks for one that cannot be honoured: a key that is
// not among the levels, or both annotations at once.
func (l Levels) ConstraintOf(annotations map[string]string) (Constraint, bool, error) {
	required, hasRequired := annotations[RequiredAnnotation]
	preferred, hasPreferred := annotations[PreferredAnnotation]
	switch {
	case hasRequired && hasPreferred:
		return Constraint{}, false, fmt.Errorf("annotations %s and %s are both set; set one", RequiredAnnotation, PreferredAnnotation)
	case !hasRequired && !hasPreferred:
		return Constraint{}, false, nil
	}
	c, name := Constraint{Key: required, Required: true}, RequiredAnnotation
	if hasPreferred {
		c, name = Constraint{Key: preferred}, PreferredAnnotation
	}
	if c.Level = l.Index(c.Key); c.Level < 0 {
		return Constraint{}, false, fmt.Errorf("annotation %s names %q, which is not one of the scheduler's topologyLevels %v",
			name, c.Key, []string(l))
	}
	return c, true, nil
}
