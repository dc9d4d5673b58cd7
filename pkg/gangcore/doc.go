// Package gangcore is the state of berth's pod groups, whichever API declared them: each group's
// members and quorum, its rounds at Permit and their release, backoff and wake-up of the pods
// Gang turned away, turns between groups, waits for room and the freeings a native group's cycle
// may have missed, and the topology domain a group's members hold. One Manager serves a scheduler
// process; pkg/gang's plugin drives it from the extension points, and pkg/podgroup's adapters
// turn each API's PodGroup into what the plugin reads. It knows neither API, and makes no API
// request: groups are keys, members are pods known by UID.
package gangcore
