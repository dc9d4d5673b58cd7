package gpushare

// berth's scheduler relies on its patches of vendored Kubernetes (hack/patches), among them
// DRA's count of a GPU share once while its claim is both written and in flight
// (dra_manager.go): without it the allocator refuses a GPU's last share to the pod scheduled then.
// A build without -overlay=hack/patches/overlay.json would leave them out without a word, so it
// stops here at compile time with "undefined: berthNeedsHackPatchesOverlay": build with `make
// build`, or pass -overlay=hack/patches/overlay.json to the go command from berth's root. The
// overlay adds the one file that defines it (hack/patches/gpushare_overlay.go.in).
var _ = berthNeedsHackPatchesOverlay
