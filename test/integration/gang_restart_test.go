package integration

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/test/harness"
)

// A restarted berth-scheduler keeps groups whole, whichever API declares them: it knows a group
// only from the API, so after the restart it must count the running group's members as holding
// their room and not bind part of the waiting group into the room that is left, and the event that
// frees the room must still bring the waiting group back whole. Each API's groups have a node of
// their own, of 4 cpu: the running group holds 3, so one member of the waiting group (1 cpu each)
// would fit. The real binary is restarted, as a user's Deployment restarts it; the waiting
// group's members must each be failed again by the new process before the room is freed.
func TestGroupsStayWholeAcrossARestart(t *testing.T) {
	e := startNativeGangEnv(t, "restart")
	for _, api := range groupAPIs {
		e.CreateNode(t, harness.Node("node-"+api.name, "4", "16Gi", nil))
	}
	gates := "--feature-gates=GenericWorkload=true"
	sched := e.StartSchedulerBinary(t, berthConfig(e.Cluster, ""), gates)
	onNode := func(api string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelHostname: "node-" + api} }
	}
	for _, api := range groupAPIs {
		e.groupOfThree(t, api, api.name+"-running", "", onNode(api.name))
	}
	e.WaitForPods(t, e.ns, time.Minute, "both running groups bound", func(p []v1.Pod) bool {
		return boundOf(p, groupAPIs[0].name+"-running") == 3 && boundOf(p, groupAPIs[1].name+"-running") == 3
	})
	var waiting []string
	for _, api := range groupAPIs {
		group := api.name + "-waiting"
		api.create(t, e, group, 3, "")
		for i := range 3 {
			name := fmt.Sprintf("%s-%d", group, i)
			e.member(t, "", name, "1", api.join(group), onNode(api.name))
			waiting = append(waiting, name)
		}
	}
	waitFailedSince(t, e.Cluster, e.ns, waiting, time.Time{}, sched)

	sched.Stop(10 * time.Second)
	restarted := time.Now()
	sched = e.StartSchedulerBinary(t, berthConfig(e.Cluster, ""), gates)
	waitFailedSince(t, e.Cluster, e.ns, waiting, restarted, sched)
	pods := e.canary(t, "canary")
	for _, api := range groupAPIs {
		if n := boundOf(pods, api.name+"-waiting"); n != 0 {
			t.Errorf("after the restart %d of the waiting %s group's 3 members bound, into room for 1", n, api.name)
		}
	}

	for _, api := range groupAPIs {
		e.deleteMembers(t, pods, api.name+"-running")
	}
	e.WaitForPods(t, e.ns, time.Minute, "both waiting groups bound whole once the running ones went", func(p []v1.Pod) bool {
		return boundOf(p, groupAPIs[0].name+"-waiting") == 3 && boundOf(p, groupAPIs[1].name+"-waiting") == 3
	})
	if err := sched.Exited(); err != nil {
		t.Fatalf("berth-scheduler exited: %v", err)
	}
}
