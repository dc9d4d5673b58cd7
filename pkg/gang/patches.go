package gang

// berth's scheduler relies on its patches of vendored Kubernetes (hack/patches), among them
// the framework's fix of a data race between two stops of one waiting pod
// (waiting_pods_map.go): Gang rejects the waiting members of a failed round while the framework
// may stop them too.
// A build without -overlay=hack/patches/overlay.json would leave them out without a word, so it
// stops here at compile time with "undefined: berthNeedsHackPatchesOverlay": build with `make
// build`, or pass -overlay=hack/patches/overlay.json to the go command from berth's root. The
// overlay adds the one file that defines it (hack/patches/gang_overlay.go.in).
var _ = berthNeedsHackPatchesOverlay
