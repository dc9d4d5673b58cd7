// Package placement measures and checks where berth puts GPU work: the packing simulations of
// pkg/gpu (BenchmarkGPUPacking, BenchmarkWholeNodePacking), and the replay of Alibaba's openb trace
// (../shared/data/openb) with berth's scoring, first fit and best fit beside the FGD paper's figures,
// checked end to end against the real berth-scheduler (TestTraceEndToEnd).
// docs/gpushare-placement.md gives the figures and the commands.
package placement
