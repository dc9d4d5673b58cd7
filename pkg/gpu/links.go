package gpu

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// NodeGPULinksAnnotation holds a node's GPU link matrix exactly as `nvidia-smi topo -m` prints
// it. Written by berth-gpu-links on the node, or pasted by an operator; see ParseLinks. The key
// keeps the name it was published with, from before berth called a node's GPU links "links"
// (topology now names label domains between nodes, pkg/topology): nodes already carry it.
const NodeGPULinksAnnotation = "berth.dev/gpu-topology"

// Link is how two GPUs of a node are connected, as `nvidia-smi topo -m` names it. A larger Link is
// a better one, in nvidia-smi's own order: SYS < NODE < PHB < PXB < PIX < NV1 < NV2 < ... (NV# is
// a bonded set of # NVLinks, and more links carry more).
type Link uint8

// The links nvidia-smi reports between two GPUs, worst first.
const (
	// LinkSYS crosses PCIe and the interconnect between NUMA nodes (QPI/UPI).
	LinkSYS Link = 1 + iota
	// LinkNODE crosses PCIe and the interconnect between PCIe host bridges of one NUMA node.
	LinkNODE
	// LinkPHB crosses PCIe and a PCIe host bridge (typically the CPU).
	LinkPHB
	// LinkPXB crosses several PCIe bridges, not the host bridge.
	LinkPXB
	// LinkPIX crosses at most one PCIe bridge.
	LinkPIX
	// LinkNV1 is one NVLink; LinkNV1+k-1 is a bonded set of k.
	LinkNV1
)

// maxNVLinks bounds the # of NV# so that every Link fits in a byte.
const maxNVLinks = 255 - int(LinkNV1) + 1

// linkClasses is the number of Link classes (SYS, NODE, PHB, PXB, PIX, NV): Score ranks nodes by
// class, and NV# of any # are one class there.
const linkClasses = int(LinkNV1)

// class is the Link's class from 0 (SYS) to linkClasses-1 (any NV#).
func (l Link) class() int { return int(min(l, LinkNV1) - LinkSYS) }

func (l Link) String() string {
	switch {
	case l >= LinkNV1:
		return "NV" + strconv.Itoa(int(l-LinkNV1)+1)
	case l == LinkPIX:
		return "PIX"
	case l == LinkPXB:
		return "PXB"
	case l == LinkPHB:
		return "PHB"
	case l == LinkNODE:
		return "NODE"
	case l == LinkSYS:
		return "SYS"
	default:
		return "?"
	}
}

// parseLink reads one cell of the matrix between two devices.
func parseLink(s string) (Link, bool) {
	switch s {
	case "SYS":
		return LinkSYS, true
	case "NODE":
		return LinkNODE, true
	case "PHB":
		return LinkPHB, true
	case "PXB":
		return LinkPXB, true
	case "PIX":
		return LinkPIX, true
	}
	n, ok := strings.CutPrefix(s, "NV")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(n)
	if err != nil || k < 1 || k > maxNVLinks || n[0] == '+' {
		return 0, false
	}
	return LinkNV1 + Link(k-1), true
}

// Links is how a node's GPUs are linked: the link between every pair and each GPU's NUMA node.
// It is immutable once parsed, so one Links is shared by every view of the node's devices.
type Links struct {
	n     int
	links []Link // n*n, row by row; the diagonal is 0
	numa  []int  // -1 where nvidia-smi gives none
}

// Len is the number of GPUs.
func (t *Links) Len() int { return t.n }

// Link is the link between GPUs i and j (i != j).
func (t *Links) Link(i, j int) Link { return t.links[i*t.n+j] }

// NUMA is GPU i's NUMA node, -1 if unknown.
func (t *Links) NUMA(i int) int { return t.numa[i] }

// String prints the matrix compactly, for logs and tests.
func (t *Links) String() string {
	var b strings.Builder
	for i := range t.n {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "GPU%d(numa %d):", i, t.numa[i])
		for j := range t.n {
			if j == i {
				b.WriteString(" X")
			} else {
				b.WriteString(" " + t.Link(i, j).String())
			}
		}
	}
	return b.String()
}

// maxLinksBytes bounds the text ParseLinks reads: nvidia-smi's matrix of 256 GPUs and their
// NICs stays well below it, and the API server caps all annotations of an object at 256 KiB.
const maxLinksBytes = 256 << 10

var (
	gpuName = regexp.MustCompile(`^GPU([0-9]+)$`)
	// ansiEscape matches the terminal escapes nvidia-smi puts around its header on a terminal.
	ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
)

// ParseLinks reads the output of `nvidia-smi topo -m`: a header row naming the devices (GPU0,
// GPU1, ..., then NICs) followed by CPU Affinity, NUMA Affinity and, in newer drivers, GPU NUMA ID;
// one row per device; then a legend. Cells may be separated by tabs, as nvidia-smi prints them, or
// by any spaces, as a hand-pasted copy may have them. Only GPU rows and GPU columns are read; NIC
// rows and columns, the affinities other than NUMA and the legends are ignored. The GPUs must be
// GPU0 to GPU(n-1), each with one row, X on the diagonal, a known link (NV#, PIX, PXB, PHB, NODE,
// SYS) everywhere else and the same link both ways. A NUMA Affinity that is not one number (N/A,
// a range) leaves the GPU's NUMA node unknown.
func ParseLinks(s string) (*Links, error) {
	if len(s) > maxLinksBytes {
		return nil, fmt.Errorf("longer than %d bytes", maxLinksBytes)
	}
	s = ansiEscape.ReplaceAllString(s, "")
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	h := -1
	var header []string
	for i, line := range lines {
		if c := cells(line); len(c) > 0 && c[0] == "GPU0" {
			h, header = i, columns(c)
			break
		}
	}
	if h < 0 {
		return nil, errors.New("no header row starting with GPU0: not the output of nvidia-smi topo -m")
	}
	// The device columns (GPUs, then NICs) run up to the first that is not a device: CPU Affinity.
	devices := len(header)
	for i, name := range header {
		if strings.Contains(name, " ") {
			devices = i
			break
		}
	}
	n := 0
	for n < devices && header[n] == "GPU"+strconv.Itoa(n) {
		n++
	}
	for _, name := range header[n:devices] {
		if gpuName.MatchString(name) {
			return nil, fmt.Errorf("header: column %s is out of order (the GPUs come first, GPU0 to GPU%d)", name, n-1)
		}
	}
	if n > maxDevicesPerNode {
		return nil, fmt.Errorf("more than %d GPUs", maxDevicesPerNode)
	}
	numaCol := slices.Index(header, "NUMA Affinity")

	t := &Links{n: n, links: make([]Link, n*n), numa: make([]int, n)}
	seen := make([]bool, n)
	for ln := h + 1; ln < len(lines); ln++ {
		f := cells(lines[ln])
		if len(f) == 0 || f[0] == "" {
			continue
		}
		if strings.HasSuffix(f[0], "Legend:") {
			break
		}
		m := gpuName.FindStringSubmatch(f[0])
		if m == nil {
			continue // a NIC's row
		}
		i, err := strconv.Atoi(m[1])
		if err != nil || i >= n {
			return nil, fmt.Errorf("line %d: row %s, but the header has %d GPUs", ln+1, f[0], n)
		}
		if seen[i] {
			return nil, fmt.Errorf("line %d: a second row for %s", ln+1, f[0])
		}
		seen[i] = true
		if len(f) < 1+devices {
			return nil, fmt.Errorf("line %d: row %s has %d cells, the header names %d devices", ln+1, f[0], len(f)-1, devices)
		}
		for j := range n {
			cell := f[1+j]
			if j == i {
				if cell != "X" {
					return nil, fmt.Errorf("line %d: %s to itself is %q, not X", ln+1, f[0], cell)
				}
				continue
			}
			l, ok := parseLink(cell)
			if !ok {
				return nil, fmt.Errorf("line %d: %s to GPU%d is %q, not one of NV#, PIX, PXB, PHB, NODE, SYS", ln+1, f[0], j, cell)
			}
			t.links[i*n+j] = l
		}
		t.numa[i] = -1
		if numaCol >= 0 && 1+numaCol < len(f) {
			if v, err := strconv.Atoi(f[1+numaCol]); err == nil && v >= 0 && v < 1<<16 {
				t.numa[i] = v
			}
		}
	}
	if n == 0 {
		return nil, errors.New("header: no GPUs")
	}
	for i := range n {
		if !seen[i] {
			return nil, fmt.Errorf("no row for GPU%d", i)
		}
		for j := range i {
			if a, b := t.Link(i, j), t.Link(j, i); a != b {
				return nil, fmt.Errorf("GPU%d to GPU%d is %s but GPU%d to GPU%d is %s", i, j, a, j, i, b)
			}
		}
	}
	return t, nil
}

// cells splits a line of the matrix: at tabs, as nvidia-smi separates its cells (a cell may be
// empty, and the header's first is), or, in a copy without tabs, at spaces. The header's leading
// empty cell is dropped, so that a row's cell 1+k is under header column k either way.
func cells(line string) []string {
	if !strings.Contains(line, "\t") {
		return strings.Fields(line)
	}
	c := strings.Split(line, "\t")
	for i := range c {
		c[i] = strings.TrimSpace(c[i])
	}
	if len(c) > 0 && c[0] == "" && len(c) > 1 && c[1] == "GPU0" {
		c = c[1:]
	}
	return c
}

// columns is the header's column names, the words of the names that follow the devices (CPU
// Affinity, NUMA Affinity, GPU NUMA ID) joined again in a copy without tabs.
func columns(c []string) []string {
	var cols []string
	for i := 0; i < len(c); i++ {
		switch {
		case i+2 < len(c) && c[i] == "GPU" && c[i+1] == "NUMA" && c[i+2] == "ID":
			cols = append(cols, "GPU NUMA ID")
			i += 2
		case i+1 < len(c) && c[i+1] == "Affinity":
			cols = append(cols, c[i]+" Affinity")
			i++
		default:
			cols = append(cols, c[i])
		}
	}
	return cols
}

// LinksError is a node's malformed berth.dev/gpu-topology annotation. The node is then
// treated as one without links.
type LinksError struct {
	Err error
}

func (e *LinksError) Error() string {
	return fmt.Sprintf("annotation %s: %v; the node's GPUs are placed without regard to their links", NodeGPULinksAnnotation, e.Err)
}

func (e *LinksError) Unwrap() error { return e.Err }

// LinksOf reads how a node's GPUs are linked from its berth.dev/gpu-topology annotation, for a node
// with the given number of GPUs (DevicesOf). It returns nil without the annotation or without
// GPUs (a node annotated before its device plugin reports them), and nil with a *LinksError when
// the annotation is malformed or names another number of GPUs.
func LinksOf(node *v1.Node, gpus int) (*Links, error) {
	s, ok := node.Annotations[NodeGPULinksAnnotation]
	if !ok || gpus == 0 {
		return nil, nil
	}
	t, err := ParseLinks(s)
	if err == nil && t.n != gpus {
		err = fmt.Errorf("the matrix has %d GPUs but the node has %d", t.n, gpus)
	}
	if err != nil {
		return nil, &LinksError{Err: err}
	}
	return t, nil
}

// WithLinks sets t as the links of every device of devs, if it has as many GPUs, and
// returns devs.
func WithLinks(devs []Device, t *Links) []Device {
	if t != nil && t.n != len(devs) {
		t = nil
	}
	for i := range devs {
		devs[i].Links = t
	}
	return devs
}

// linksOf is the links devs share, nil if they have none (or, which never happens with
// devices built by this package, one that does not cover them all).
func linksOf(devs []Device) *Links {
	if len(devs) == 0 || devs[0].Links == nil || devs[0].Links.n != len(devs) {
		return nil
	}
	return devs[0].Links
}
