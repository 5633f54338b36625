/* job_key JOB: reads a job file as the tuner does (the reader refuses a job
 * whose "key" is not aoe_job_compute_key of its contents) and prints the
 * key it computes; exit status 1 with the reader's message otherwise. For
 * tests/integration/shim_cuda_tune.sh: the key the shim used is the job's. */
#include "jobs/job.h"
#include "store/record.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    aoe_job job;
    char err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: job_key JOB\n");
        return 2;
    }
    if (aoe_job_read(argv[1], &job, err, sizeof err)) {
        fprintf(stderr, "job_key: %s\n", err);
        return 1;
    }
    char hex[33];
    aoe_key key = aoe_job_compute_key(&job);
    aoe_key_to_hex(&key, hex);
    printf("%s\n", hex);
    aoe_job_free(&job);
    return 0;
}
