package extender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The hot verbs, filter and prioritize, carry a few hundred node names each way for every GPU pod,
// and the scheduler waits for them in its one-pod-at-a-time cycle. encoding/json spends about
// 350 ns and an allocation on each name it decodes (reflection and a copy per string), three
// times what the rest of the request costs; this file reads and writes those lists directly and
// leaves everything else, and every list it cannot read exactly as encoding/json would, to
// encoding/json.

// argsWire is ExtenderArgs with NodeNames kept raw, for readNodeNames, and Nodes read one at a
// time. The field names are ExtenderArgs', so encoding/json matches keys to them exactly as it
// does for ExtenderArgs.
type argsWire struct {
	Pod       *v1.Pod
	Nodes     *nodeListWire
	NodeNames json.RawMessage
}

// nodeListWire is v1.NodeList with its items read by nodeItems.
type nodeListWire struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           nodeItems `json:"items"`
}

// maxNodes bounds the Node objects one request may carry: more than the largest clusters have.
const maxNodes = 15000

// nodeItems reads a JSON array of Nodes one at a time, as encoding/json would, but refuses more
// than maxNodes of them. A Node takes 784 bytes decoded even when it was sent as `{}`: without a
// bound, a 3 MiB body of empty items allocated 4 GiB, which no memory limit holds.
type nodeItems []v1.Node

func (n *nodeItems) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return &json.UnmarshalTypeError{Value: "non-array", Type: reflect.TypeFor[nodeItems](), Field: "items"}
	}
	items := nodeItems{}
	for dec.More() {
		if len(items) == maxNodes {
			return fmt.Errorf("the request has more than %d Nodes", maxNodes)
		}
		items = append(items, v1.Node{})
		if err := dec.Decode(&items[len(items)-1]); err != nil {
			return err
		}
	}
	*n = items
	return nil
}

// unwire gives the ExtenderArgs that decoding the same body into ExtenderArgs gives.
func (w *argsWire) unwire(into *extenderv1.ExtenderArgs) error {
	into.Pod, into.Nodes, into.NodeNames = w.Pod, nil, nil
	if w.Nodes != nil {
		into.Nodes = &v1.NodeList{TypeMeta: w.Nodes.TypeMeta, ListMeta: w.Nodes.ListMeta, Items: w.Nodes.Items}
	}
	if w.NodeNames == nil || string(w.NodeNames) == "null" {
		return nil
	}
	if names, ok := readNodeNames(w.NodeNames); ok {
		into.NodeNames = &names
		return nil
	}
	var names []string
	if err := json.Unmarshal(w.NodeNames, &names); err != nil {
		return err
	}
	into.NodeNames = &names
	return nil
}

// readNodeNames reads a JSON array of strings that need no unescaping, the form every node name
// takes, into substrings of one copy of raw. It reports false for anything else (escapes,
// invalid UTF-8, which encoding/json replaces, or other values), which the caller then decodes
// with encoding/json. raw is one JSON value that the decoder has already checked.
func readNodeNames(raw []byte) ([]string, bool) {
	s := string(raw)
	i := skipSpace(s, 0)
	if i == len(s) || s[i] != '[' {
		return nil, false
	}
	names := make([]string, 0, strings.Count(s, ",")+1)
	if i = skipSpace(s, i+1); i < len(s) && s[i] == ']' {
		return names, true
	}
	for i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		name := s[i+1 : i+1+end]
		if strings.IndexByte(name, '\\') >= 0 || !utf8.ValidString(name) {
			return nil, false
		}
		names = append(names, name)
		i = skipSpace(s, i+end+2)
		switch {
		case i == len(s):
			return nil, false
		case s[i] == ']':
			return names, true
		case s[i] == ',':
			i = skipSpace(s, i+1)
		default:
			return nil, false
		}
	}
	return nil, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// answerBuffers holds the buffers answers are written into; a prioritize answer for 500 nodes is
// about 15 KiB.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// appendAnswer appends resp as JSON: the answers of filter (with NodeNames) and prioritize
// directly, any other through encoding/json. Both forms decode to the same value.
func appendAnswer(b []byte, resp any) ([]byte, error) {
	switch r := resp.(type) {
	case *extenderv1.HostPriorityList:
		return appendPriorities(b, *r), nil
	case *extenderv1.ExtenderFilterResult:
		if r.Nodes == nil {
			return appendFilterResult(b, r), nil
		}
	}
	out, err := json.Marshal(resp)
	return append(b, out...), err
}

func appendPriorities(b []byte, list extenderv1.HostPriorityList) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, p := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Host":`...)
		b = appendString(b, p.Host)
		b = append(b, `,"Score":`...)
		b = strconv.AppendInt(b, p.Score, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendFilterResult writes a filter answer whose Nodes is nil.
func appendFilterResult(b []byte, r *extenderv1.ExtenderFilterResult) []byte {
	b = append(b, `{"Nodes":null,"NodeNames":`...)
	if r.NodeNames == nil || *r.NodeNames == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, name := range *r.NodeNames {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, name)
		}
		b = append(b, ']')
	}
	b = append(b, `,"FailedNodes":`...)
	b = appendFailed(b, r.FailedNodes)
	b = append(b, `,"FailedAndUnresolvableNodes":`...)
	b = appendFailed(b, r.FailedAndUnresolvableNodes)
	b = append(b, `,"Error":`...)
	b = appendString(b, r.Error)
	return append(b, '}')
}

// appendFailed writes the map with its keys in order, as encoding/json does.
func appendFailed(b []byte, m extenderv1.FailedNodesMap) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, node := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, node)
		b = append(b, ':')
		b = appendString(b, m[node])
	}
	return append(b, '}')
}

// appendString writes s as a JSON string: as it is when it needs no escaping (node names never
// do), else as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
