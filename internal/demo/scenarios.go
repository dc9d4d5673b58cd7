package demo

import "context"

// scenario is one workload of the demo, in a namespace of its name, on nodes of its own.
type scenario struct {
	name  string
	title string
	// prepare, if set, creates what must exist before the scheduler starts.
	prepare func(ctx context.Context, d *demo) error
	// run creates the rest, waits for the scheduler to settle, and reports into the section.
	run func(ctx context.Context, d *demo, s *Section) error
}

var scenarios = []scenario{
	{name: "qos", title: "QoS ordering when capacity is short", prepare: prepareQoS, run: runQoS},
	{name: "gpus", title: "Pods sharing GPUs", run: runGPUs},
	{name: "gangs", title: "Gangs: all or nothing", run: runGangs},
	{name: "topology", title: "Gangs inside one rack", run: runTopology},
	{name: "quota", title: "Quotas: lend what is idle, take it back", prepare: prepareQuota, run: runQuota},
}

// ScenarioNames names every scenario, in the order the demo runs them.
func ScenarioNames() []string {
	n := make([]string, len(scenarios))
	for i, s := range scenarios {
		n[i] = s.name
	}
	return n
}

func selectedScenarios(names []string) []scenario {
	var out []scenario
	for _, s := range scenarios {
		for _, n := range names {
			if s.name == n {
				out = append(out, s)
				break
			}
		}
	}
	return out
}
