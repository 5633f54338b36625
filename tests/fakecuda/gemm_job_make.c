/* Test tool: writes a GEMM tuning job (jobs/gemm.h, aoe_gemm_job_make) as
 * the cublas hooks would capture it.
 *   gemm_job_make OUT.job FINGERPRINT '{"path":"lt","library":"cublasLt",...}' [CUBLAS_DIR]
 * The third argument is the description's JSON (runtime_extra.gemm); the
 * fingerprint the CUDA one (store/fingerprint.h); the fourth where the
 * program's cuBLASLt lies (runtime_extra.cublas_dir). */
#include "jobs/gemm.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    aoe_gemm_desc d;
    aoe_job job;
    char err[512];
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: gemm_job_make OUT.job FINGERPRINT GEMM_JSON [CUBLAS_DIR]\n");
        return 2;
    }
    if (aoe_gemm_desc_from_json(argv[3], &d, err, sizeof err)) {
        fprintf(stderr, "gemm_job_make: %s\n", err);
        return 1;
    }
    if (aoe_gemm_job_make(&job, argv[2], &d, argc == 5 ? argv[4] : NULL) ||
        aoe_job_write(argv[1], &job)) {
        perror("gemm_job_make");
        return 1;
    }
    aoe_job_free(&job);
    return 0;
}
