/* A job's launch sizes in threads (job.h, aoe_job_launch_sizes): the one
 * place that knows a grid/block launch counts blocks. */
#include "jobs/job.h"

void aoe_job_launch_sizes(const aoe_job *job, uint64_t global[3], uint64_t local[3], int *has_local)
{
    int grid = job->launch_kind == AOE_LAUNCH_GRID_BLOCK;
    for (int d = 0; d < 3; d++) {
        global[d] = grid ? job->grid[d] * job->block[d] : job->global[d];
        local[d] = job->local[d]; /* the block, for a grid launch */
    }
    *has_local = grid ? 1 : job->has_local;
}
