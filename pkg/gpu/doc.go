// Package gpu is berth's GPU memory accounting: what a pod asks for, what GPUs a node has, which
// devices a pod gets, how a placement scores, and a cache of every node's devices and every pod's
// share of them. It serves both the GPUShare scheduler plugin and the HTTP extender, so it knows
// nothing of the scheduling framework: its inputs are core API objects.
//
// Memory is counted in the units of the node's extended resource (GiB by default with the gpushare
// device plugin, MiB with --memory-unit=MiB); the package never converts them.
package gpu
