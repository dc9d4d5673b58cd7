// Package bench measures berth against the stock kube-scheduler with upstream's scheduler_perf
// harness (k8s.io/kubernetes/test/integration/scheduler_perf): the same workloads, each run once
// with the stock profile and once with berth's, against an in-process kube-apiserver and a fresh
// etcd per workload. performance-config.yaml holds the workloads, templates/ their objects;
// berth runs the configuration it ships to replace the stock scheduler. The harness runs the
// scheduler in the test binary's process: hack/bench.sh runs the stock test cases from a binary built
// without berth's patches of vendored Kubernetes (cases_test.go). cmd/benchtable turns the
// results into one table; docs/benchmarks.md explains how to run it and keeps the latest numbers.
//
// What the harness's ops cannot do (update nodes at a steady rate, release gangs as they are
// bound, watch for gangs bound in part) is done by a driver per workload family (driver_test.go),
// whose figures join the harness's in the same results file.
//
// The benchmark lives in the _test.go files: BenchmarkPerfScheduling (the harness), and
// TestTopologySimulation beside it. Its tests run in `make soak` only (harness.SoakOnly), so
// `make test` never builds the in-process kube-apiserver the harness needs:
// TestBenchWorkloadsShort runs every workload at a tiny size there, so they cannot rot. Placement
// quality is measured in test/placement, the deep backlog in test/backlog.
package bench
