package extender

import (
	"bytes"
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// FuzzArgsWire holds the decoding of filter and prioritize requests to encoding/json's: any body
// gives the same ExtenderArgs, or an error both ways.
func FuzzArgsWire(f *testing.F) {
	for _, body := range []string{
		`{"Pod": {"metadata": {"name": "p"}}, "NodeNames": ["a", "b", "node-1.example.com"]}`,
		` { "NodeNames" : [ "a" ,"b"	,
		 "c" ] , "Pod":null} `,
		`{"NodeNames": []}`,
		`{"NodeNames": null}`,
		`{"NodeNames": ["a"], "NodeNames": null}`,
		`{"NodeNames": ["a"], "nodenames": ["b"]}`,
		`{"NodeNames": ["a\"b", "\u00e9", "x\\y", "\ud800"]}`,
		"{\"NodeNames\": [\"\xff\xfe\"]}",
		`{"NodeNames": ["a", null, "b"]}`,
		`{"NodeNames": ["a", 1]}`,
		`{"NodeNames": "a"}`,
		`{"NodeNames": {"a": "b"}}`,
		`{"NodeNames": [["a"]]}`,
		`{"Nodes": {"items": [{"metadata": {"name": "n"}}]}}`,
		`{"Nodes": {"Items": [{}, {"metadata": {"name": "a"}}], "metadata": {"resourceVersion": "1"}, "kind": "NodeList"}}`,
		`{"Nodes": {"items": null}}`,
		`{"Nodes": {"items": 5}}`,
		`{"Nodes": {"items": [1]}}`,
		`{"Nodes": {"items": [{}], "items": []}}`,
		`{"Pod": 5}`,
		`[]`,
		`null`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want extenderv1.ExtenderArgs
		wantErr := json.Unmarshal(body, &want)
		var wire argsWire
		var got extenderv1.ExtenderArgs
		gotErr := json.Unmarshal(body, &wire)
		if gotErr == nil {
			gotErr = wire.unwire(&got)
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", body, gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		if w, g := mustJSON(want), mustJSON(got); !bytes.Equal(w, g) {
			t.Fatalf("%q: decoded as\n%s\nencoding/json decodes it as\n%s", body, g, w)
		}
	})
}

// TestAppendAnswer holds the answers of filter and prioritize, written directly, to encoding/json's
// bytes.
func TestAppendAnswer(t *testing.T) {
	names := []string{"a", "node-1", "<&>", "é", "\xff", "q\"uote", "tab\t"}
	empty := []string{}
	for name, resp := range map[string]any{
		"priorities":       &extenderv1.HostPriorityList{{Host: "a", Score: 10}, {Host: "<b>", Score: -3}, {Host: "", Score: 0}},
		"no priorities":    &extenderv1.HostPriorityList{},
		"nil priorities":   new(extenderv1.HostPriorityList),
		"filter by names":  &extenderv1.ExtenderFilterResult{NodeNames: &names, FailedNodes: extenderv1.FailedNodesMap{"z": "no room", "b": "x\ny"}, FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{}},
		"filter kept none": &extenderv1.ExtenderFilterResult{NodeNames: &empty, FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n": "no GPUs"}},
		"filter error":     &extenderv1.ExtenderFilterResult{Error: "retry <later>"},
		"filter by nodes":  &extenderv1.ExtenderFilterResult{Nodes: &v1.NodeList{Items: []v1.Node{{}}}},
		"bind":             &extenderv1.ExtenderBindingResult{Error: "taken"},
	} {
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendAnswer([]byte("prefix"), resp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("%s: wrote\n%s\nencoding/json writes\n%s", name, got, want)
		}
	}
}

// BenchmarkReadArgs is the extender's side of a filter or prioritize request: the bench's GPU pod
// and 420 candidate names.
func BenchmarkReadArgs(b *testing.B) {
	body := benchArgs(b)
	for b.Loop() {
		var wire argsWire
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&wire); err != nil {
			b.Fatal(err)
		}
		if err := wire.unwire(&args); err != nil || len(*args.NodeNames) != 420 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadArgsEncodingJSON is BenchmarkReadArgs with encoding/json alone, for comparison.
func BenchmarkReadArgsEncodingJSON(b *testing.B) {
	body := benchArgs(b)
	for b.Loop() {
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&args); err != nil || len(*args.NodeNames) != 420 {
			b.Fatal(err)
		}
	}
}

func benchArgs(b *testing.B) []byte {
	names := make([]string, 420)
	for i := range names {
		names[i] = "node-" + string(rune('a'+i%26)) + "-" + string(rune('a'+i/26))
	}
	return mustJSON(&extenderv1.ExtenderArgs{Pod: benchPod(), NodeNames: &names})
}
