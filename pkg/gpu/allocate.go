package gpu

import (
	"cmp"
	"fmt"
	"slices"
)

// Device is one GPU as the scheduler sees it.
type Device struct {
	Capacity int64
	// Used may exceed Capacity when a node's GPUs shrink under running pods, or when pods placed
	// by someone else claim more than there is.
	Used int64
	// Links is how the node's GPUs are linked (berth.dev/gpu-topology), the same for every device
	// of the node; nil if unknown. See WithLinks and linkset.go.
	Links *Links
}

// Free is the memory still to be had on the device.
func (d Device) Free() int64 { return max(d.Capacity-d.Used, 0) }

// Adjust changes devs' use as a pod holding a would if it arrived (sign 1) or left (sign -1).
// Shares on devices devs lacks are ignored and use never drops below zero: what-if views (the
// extender's victims) are built from a cache snapshot that the informers may have moved on from.
func Adjust(devs []Device, a Assignment, sign int64) {
	for _, s := range a {
		if s.Index < len(devs) {
			devs[s.Index].Used = max(devs[s.Index].Used+sign*s.Memory, 0)
		}
	}
}

// Strategy decides which devices a pod gets and how a placement scores.
type Strategy struct {
	name string
	// before reports whether a device with free memory a is taken before one with free memory b.
	before func(a, b int64) bool
	// rate turns how full a placement leaves the devices (0 to 1) into a score from 0 to 1.
	rate func(fullness float64) float64
}

// The strategies, by the args values that select them.
var (
	// Binpack takes the device with the least free memory that still fits (best fit), and prefers
	// placements that leave devices and nodes fullest, keeping whole GPUs free for large requests.
	Binpack = &Strategy{
		name:   BinpackName,
		before: func(a, b int64) bool { return a < b },
		rate:   func(f float64) float64 { return f },
	}
	// Spread takes the device with the most free memory, and prefers placements that leave devices
	// and nodes emptiest, spreading memory pressure.
	Spread = &Strategy{
		name:   SpreadName,
		before: func(a, b int64) bool { return a > b },
		rate:   func(f float64) float64 { return 1 - f },
	}
	// FragmentationStrategy, named Fragmentation (the name Fragmentation is the measure's), takes
	// devices as Binpack does. What sets it apart is how GPUShare ranks the nodes: by how little
	// the placement grows the node's fragmentation against the mix of requests the scheduler has
	// seen (FragmentationCost, RawScore), not by Score. Where only Score is asked (berth-extender's
	// prioritize), it rates placements as Binpack.
	FragmentationStrategy = &Strategy{
		name:   FragmentationName,
		before: Binpack.before,
		rate:   Binpack.rate,
	}
	strategies = map[string]*Strategy{Binpack.name: Binpack, Spread.name: Spread, FragmentationStrategy.name: FragmentationStrategy}
)

// StrategyNamed returns the strategy for an args value.
func StrategyNamed(name string) (*Strategy, error) {
	s, ok := strategies[name]
	if !ok {
		return nil, fmt.Errorf("unknown GPU scoring strategy %q", name)
	}
	return s, nil
}

func (s *Strategy) String() string { return s.name }

// NoFitError says why a request does not fit on a node's devices.
type NoFitError struct {
	Request Request
	// Devices is how many GPUs the node has.
	Devices int
	// Fitting is how many of them have Request.PerDevice free.
	Fitting int
	// LargestFree is the most free memory on one device.
	LargestFree int64
	// Resolvable is true when the node's GPUs are large and many enough for the request, so that
	// freeing memory (preemption) could make it fit.
	Resolvable bool
}

func (e *NoFitError) Error() string {
	r := e.Request
	switch {
	case e.Devices == 0:
		return "node has no GPUs"
	case !e.Resolvable && r.Count == 1:
		return fmt.Sprintf("GPU memory: pod asks for %d on one GPU, more than any GPU of this node holds", r.PerDevice)
	case !e.Resolvable:
		return fmt.Sprintf("GPU memory: pod asks for %d GPUs with %d each, but this node has fewer than %d GPUs that large", r.Count, r.PerDevice, r.Count)
	case r.Count == 1:
		return fmt.Sprintf("GPU memory: pod asks for %d on one GPU; the most free on one GPU of this node is %d", r.PerDevice, e.LargestFree)
	default:
		return fmt.Sprintf("GPU memory: pod asks for %d GPUs with %d free each; %d GPU(s) of this node have that much, the most free on one GPU is %d",
			r.Count, r.PerDevice, e.Fitting, e.LargestFree)
	}
}

// Fit chooses the devices for a request: req.Count devices, each with req.PerDevice free, taken in
// the strategy's order with the lower index first among equals, or why the request does not fit.
// Fit is pure and deterministic. Its error is typed, as Fits' and Score's are, so that callers read
// why without a type check; one that passes it on as an error must not pass a nil *NoFitError.
func Fit(devs []Device, req Request, s *Strategy) (Assignment, *NoFitError) {
	if req.Total <= 0 {
		return nil, nil
	}
	if nf := noFit(devs, req); nf != nil {
		return nil, nf
	}
	var buf [maxStackDevices]int
	a := make(Assignment, req.Count)
	for i, idx := range choose(devs, req, s, buf[:0]) {
		a[i] = DeviceShare{Index: idx, Memory: req.PerDevice}
	}
	sortShares(a)
	return a, nil
}

// Fits reports whether Fit would find devices for req, with Fit's error if not, without choosing
// them: Filter asks it of every node, and most nodes pass, so it neither sorts nor allocates.
func Fits(devs []Device, req Request) *NoFitError {
	if req.Total <= 0 {
		return nil
	}
	return noFit(devs, req)
}

// maxStackDevices is how many chosen devices Fit and Score keep on the stack; requests for more
// GPUs allocate.
const maxStackDevices = 8

// noFit is the error Fit returns when fewer than req.Count devices have req.PerDevice free, nil if
// enough have.
func noFit(devs []Device, req Request) *NoFitError {
	var (
		fitting int
		largest int64
		large   int // devices that could hold the share, were they empty
	)
	for _, d := range devs {
		free := d.Free()
		largest = max(largest, free)
		if free >= req.PerDevice {
			fitting++
		}
		if d.Capacity >= req.PerDevice {
			large++
		}
	}
	if fitting >= req.Count {
		return nil
	}
	return &NoFitError{
		Request:     req,
		Devices:     len(devs),
		Fitting:     fitting,
		LargestFree: largest,
		Resolvable:  large >= req.Count,
	}
}

// choose appends to dst the indices of the req.Count devices Fit takes, in the order taken: each
// is the first, in the strategy's order of free memory and then by index, of the devices with
// req.PerDevice free that come after the one taken before it. Enough devices must fit (noFit).
func choose(devs []Device, req Request, s *Strategy, dst []int) []int {
	if t := linksOf(devs); t != nil {
		return chooseLinked(devs, t, req, s, dst)
	}
	// after reports whether device i comes after device j in the order devices are taken.
	after := func(i, j int) bool {
		fi, fj := devs[i].Free(), devs[j].Free()
		if fi == fj {
			return i > j
		}
		return s.before(fj, fi)
	}
	prev := -1
	for range req.Count {
		next := -1
		for i, d := range devs {
			if d.Free() < req.PerDevice || (prev >= 0 && !after(i, prev)) {
				continue
			}
			if next < 0 || after(next, i) {
				next = i
			}
		}
		dst = append(dst, next)
		prev = next
	}
	return dst
}

// CanHold reports whether GPUs of these capacities could ever hold the request, were they empty.
func CanHold(capacities []int64, req Request) bool {
	n := 0
	for _, c := range capacities {
		if c >= req.PerDevice {
			n++
		}
	}
	return n >= req.Count
}

// Score rates placing a request on a node's devices from 0 (worst) to 1 (best) by the strategy.
// It judges both the devices the pod would get (how full they end up, on average) and the node as
// a whole (how full all its GPUs end up), in equal parts. On a node with links, a pod with
// several GPUs is rated first by the class of the worst link of the set it gets (SYS, NODE, PHB,
// PXB, PIX, NV#), and by the strategy within a class; see linkScore. It returns Fit's error if the
// request does not fit.
func Score(devs []Device, req Request, s *Strategy) (float64, *NoFitError) {
	if req.Total <= 0 {
		return 0, nil
	}
	if nf := noFit(devs, req); nf != nil {
		return 0, nf
	}
	var buf [maxStackDevices]int
	chosen := choose(devs, req, s, buf[:0])
	// Summed in index order, as the assignment lists them, so that Score rates a placement the same
	// however it was chosen.
	slices.Sort(chosen)
	var deviceFull float64
	for _, i := range chosen {
		dev := devs[i]
		deviceFull += fullness(dev.Used+req.PerDevice, dev.Capacity)
	}
	deviceFull /= float64(len(chosen))
	var used, capacity int64
	for _, d := range devs {
		used += min(d.Used, d.Capacity)
		capacity += d.Capacity
	}
	nodeFull := fullness(used+req.Total, capacity)
	return linkScore(devs, chosen, s.rate((deviceFull+nodeFull)/2)), nil
}

func fullness(used, capacity int64) float64 {
	if capacity <= 0 {
		return 1
	}
	return min(float64(used)/float64(capacity), 1)
}

func sortShares(a Assignment) {
	slices.SortFunc(a, func(x, y DeviceShare) int { return cmp.Compare(x.Index, y.Index) })
}
