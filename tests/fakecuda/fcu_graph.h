/* CUDA graphs of the fake driver (fcu_graph.c): what stream capture
 * (fcu_launch.c) records into a graph, and the replay counts that
 * fakecuda_launches reports. */
#ifndef FCU_GRAPH_H
#define FCU_GRAPH_H

#include "fcu_module.h"

/* Adds a kernel launch of f to capturing graph g (its parameter values
 * copied now, as the real driver does): CUDA_SUCCESS or OUT_OF_MEMORY. */
CUresult fcu_graph_capture(struct CUgraph_st *g, struct CUfunc_st *f, const unsigned grid[3],
                           const unsigned block[3], unsigned shared, void **params);
/* Replays through "cuGraphLaunch" or "cuGraphLaunch_ptsz" (0 for other names). */
unsigned long fcu_graph_replays(const char *variant);

#endif
