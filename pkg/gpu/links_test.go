package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The recorded outputs of `nvidia-smi topo -m` in testdata/links (see its README: reconstructed
// from the documented format of those machine types).
const (
	nvswitch8 = "nvswitch-8gpu.txt"
	pcie8     = "pcie-8gpu-2numa.txt"
	nvpairs4  = "nvlink-pairs-4gpu.txt"
)

func recorded(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "links", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func recordedLinks(t testing.TB, name string) *Links {
	t.Helper()
	links, err := ParseLinks(recorded(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return links
}

// matrix writes links as rows, "X" on the diagonal, for comparisons.
func matrix(links *Links) []string {
	rows := make([]string, links.Len())
	for i := range rows {
		cells := make([]string, links.Len())
		for j := range cells {
			cells[j] = "X"
			if i != j {
				cells[j] = links.Link(i, j).String()
			}
		}
		rows[i] = strings.Join(cells, " ")
	}
	return rows
}

func numas(links *Links) []int {
	n := make([]int, links.Len())
	for i := range n {
		n[i] = links.NUMA(i)
	}
	return n
}

func TestParseLinksRecorded(t *testing.T) {
	tests := []struct {
		file     string
		wantRows []string
		wantNUMA []int
	}{
		{
			file: nvswitch8,
			wantRows: []string{
				"X NV12 NV12 NV12 NV12 NV12 NV12 NV12",
				"NV12 X NV12 NV12 NV12 NV12 NV12 NV12",
				"NV12 NV12 X NV12 NV12 NV12 NV12 NV12",
				"NV12 NV12 NV12 X NV12 NV12 NV12 NV12",
				"NV12 NV12 NV12 NV12 X NV12 NV12 NV12",
				"NV12 NV12 NV12 NV12 NV12 X NV12 NV12",
				"NV12 NV12 NV12 NV12 NV12 NV12 X NV12",
				"NV12 NV12 NV12 NV12 NV12 NV12 NV12 X",
			},
			wantNUMA: []int{3, 3, 1, 1, 7, 7, 5, 5},
		},
		{
			file: pcie8,
			wantRows: []string{
				"X PIX PXB PXB SYS SYS SYS SYS",
				"PIX X PXB PXB SYS SYS SYS SYS",
				"PXB PXB X PIX SYS SYS SYS SYS",
				"PXB PXB PIX X SYS SYS SYS SYS",
				"SYS SYS SYS SYS X PIX NODE NODE",
				"SYS SYS SYS SYS PIX X NODE NODE",
				"SYS SYS SYS SYS NODE NODE X PIX",
				"SYS SYS SYS SYS NODE NODE PIX X",
			},
			wantNUMA: []int{0, 0, 0, 0, 1, 1, 1, 1},
		},
		{
			file: nvpairs4,
			wantRows: []string{
				"X NV4 PIX NODE",
				"NV4 X NODE PIX",
				"PIX NODE X NV4",
				"NODE PIX NV4 X",
			},
			wantNUMA: []int{0, 0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text := recorded(t, tt.file)
			variants := map[string]string{
				"as printed": text,
				// A copy pasted by hand: tabs turned into runs of spaces, CRLF line ends.
				"pasted with spaces": strings.ReplaceAll(strings.ReplaceAll(text, "\t", "   "), "\n", "\r\n"),
				// On a terminal nvidia-smi underlines the header.
				"with terminal escapes": "\x1b[4m" + strings.Replace(text, "\n", "\x1b[0m\n", 1),
			}
			for name, v := range variants {
				links, err := ParseLinks(v)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(tt.wantRows, matrix(links)); diff != "" {
					t.Errorf("%s: links (-want +got):\n%s", name, diff)
				}
				if diff := cmp.Diff(tt.wantNUMA, numas(links)); diff != "" {
					t.Errorf("%s: NUMA nodes (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestParseLinksRejects(t *testing.T) {
	good := recorded(t, nvpairs4)
	tests := []struct {
		name    string
		text    string
		wantErr string
	}{
		{name: "empty", text: "", wantErr: "no header row"},
		{name: "not a matrix", text: "No devices were found\n", wantErr: "no header row"},
		{name: "unknown link", text: strings.Replace(good, "NV4", "NVX", 1), wantErr: `GPU0 to GPU1 is "NVX"`},
		{name: "NV0", text: strings.Replace(good, "NV4", "NV0", 1), wantErr: `GPU0 to GPU1 is "NV0"`},
		{name: "asymmetric", text: strings.Replace(good, "NV4", "PIX", 1), wantErr: "GPU1 to GPU0 is NV4 but GPU0 to GPU1 is PIX"},
		{name: "self not X", text: strings.Replace(good, "GPU0\t X ", "GPU0\tPIX", 1), wantErr: `GPU0 to itself is "PIX"`},
		{name: "missing row", text: strings.Replace(good, "GPU3\tNODE\tPIX\tNV4\t X \t0-31\t0\n", "", 1), wantErr: "no row for GPU3"},
		{name: "short row", text: strings.Replace(good, "GPU3\tNODE\tPIX\tNV4\t X \t0-31\t0", "GPU3\tNODE\tPIX", 1), wantErr: "row GPU3 has 2 cells"},
		{name: "duplicate row", text: strings.Replace(good, "\nGPU2\t", "\nGPU1\t", 1), wantErr: "a second row for GPU1"},
		{name: "row past the header", text: strings.Replace(good, "GPU3\tNODE", "GPU9\tNODE", 1), wantErr: "row GPU9, but the header has 4 GPUs"},
		{name: "GPUs out of order", text: strings.Replace(good, "\tGPU1\tGPU2", "\tGPU2\tGPU1", 1), wantErr: "column GPU2 is out of order"},
		{name: "too long", text: strings.Repeat(" ", maxLinksBytes+1), wantErr: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			links, err := ParseLinks(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseLinks = %v, %v; want an error containing %q", links, err, tt.wantErr)
			}
		})
	}
}

func TestLinkOrder(t *testing.T) {
	order := []string{"SYS", "NODE", "PHB", "PXB", "PIX", "NV1", "NV2", "NV12", "NV18"}
	for i := 1; i < len(order); i++ {
		lo, _ := parseLink(order[i-1])
		hi, ok := parseLink(order[i])
		if !ok || lo >= hi {
			t.Errorf("%s (%d) does not rank above %s (%d)", order[i], hi, order[i-1], lo)
		}
		if hi.String() != order[i] {
			t.Errorf("%s prints as %s", order[i], hi)
		}
	}
}

func TestLinksOf(t *testing.T) {
	node := gpuNode("n", "4", "64").Obj()
	if links, err := LinksOf(node, 4); links != nil || err != nil {
		t.Errorf("without the annotation: %v, %v; want nil, nil", links, err)
	}
	node.Annotations = map[string]string{NodeGPULinksAnnotation: recorded(t, nvpairs4)}
	if links, err := LinksOf(node, 4); links == nil || err != nil {
		t.Errorf("with the annotation: %v, %v; want links", links, err)
	}
	if links, err := LinksOf(node, 8); links != nil || err == nil || !strings.Contains(err.Error(), "the matrix has 4 GPUs but the node has 8") {
		t.Errorf("for another number of GPUs: %v, %v; want nil and an error", links, err)
	}
	node.Annotations[NodeGPULinksAnnotation] = "garbage"
	_, err := LinksOf(node, 4)
	if _, ok := err.(*LinksError); !ok {
		t.Errorf("malformed annotation: error %v (%T), want a *LinksError", err, err)
	}
}

// FuzzParseLinks: ParseLinks never panics, and what it accepts is a square, symmetric matrix
// of known links.
func FuzzParseLinks(f *testing.F) {
	for _, name := range []string{nvswitch8, pcie8, nvpairs4} {
		f.Add(recorded(f, name))
	}
	f.Add("\tGPU0\tGPU1\nGPU0\t X \tNV1\nGPU1\tNV1\t X \n")
	f.Add("GPU0 GPU1 CPU Affinity NUMA Affinity\nGPU0 X SYS 0 0\nGPU1 SYS X 0 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		links, err := ParseLinks(s)
		if err != nil {
			return
		}
		if links.Len() < 1 || len(links.links) != links.Len()*links.Len() || len(links.numa) != links.Len() {
			t.Fatalf("accepted malformed links: %+v", links)
		}
		for i := range links.Len() {
			for j := range links.Len() {
				if i != j && (links.Link(i, j) < LinkSYS || links.Link(i, j) != links.Link(j, i)) {
					t.Fatalf("accepted link %d between GPU%d and GPU%d", links.Link(i, j), i, j)
				}
			}
		}
	})
}

// The cache, which the extender reads, gives a node's devices their links, drops it when the
// annotation turns malformed (and says so), and NodeChanged sees the annotation change.
func TestCacheLinks(t *testing.T) {
	c := NewCache(testResources)
	defer c.Close()
	node := gpuNode("n", "4", "64").Annotation(NodeGPULinksAnnotation, recorded(t, nvpairs4)).Obj()
	if err := c.AddOrUpdateNode(node); err != nil {
		t.Fatal(err)
	}
	devs := c.NodeView("n")
	if len(devs) != 4 || devs[0].Links == nil || devs[3].Links != devs[0].Links {
		t.Fatalf("devices %+v: want 4 sharing links", devs)
	}
	if a, _ := Fit(devs, many(2, 8), Binpack); !slices.Equal(indices(a), []int{0, 1}) {
		t.Errorf("Fit on the cache's view: %v, want the NVLink pair 0-1", a)
	}

	bad := node.DeepCopy()
	bad.Annotations[NodeGPULinksAnnotation] = "GPU0 GPU1\nGPU0 X NV2\n"
	if !NodeChanged(node, bad, testResources) {
		t.Error("NodeChanged misses a change of the links annotation")
	}
	err := c.AddOrUpdateNode(bad)
	var te *LinksError
	if !errors.As(err, &te) {
		t.Fatalf("malformed annotation: error %v, want a *LinksError", err)
	}
	if devs := c.NodeView("n"); len(devs) != 4 || devs[0].Links != nil {
		t.Errorf("devices %+v: want 4 without links", devs)
	}
	// Both annotations malformed: both are reported, as one error about the memory annotation.
	bad.Annotations[NodeGPUMemoryAnnotation] = "x"
	if err := c.AddOrUpdateNode(bad); !errors.As(err, &te) || !strings.Contains(err.Error(), NodeGPUMemoryAnnotation) {
		t.Errorf("two malformed annotations: %v", err)
	}
}
