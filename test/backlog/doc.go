// Package backlog measures berth with a deep backlog of gangs and GPU pods waiting where nothing
// fits: the scheduler's idle cost, and the time from room appearing (pods deleted or finished,
// nodes joined or ready) to whole groups bound (BenchmarkBacklog; TestBacklogShort at a small size).
// The schedulers are the real processes from bin/. docs/benchmarks.md gives the figures, docs/benchmarks-backlog.md the whole measure.
package backlog
