/* The lead of a timed GEMM run: device work queued ahead of the start event,
 * so that the host's cost of issuing the call stays out of the timing. On an
 * idle stream the start event completes at once and the device then waits
 * for the host to issue the call: cuBLAS' own call picks its algorithm on
 * the host every time, a cuBLASLt call with a given algorithm does not, so
 * timed that way cuBLAS' own call looked 1-4 % slower than the very same
 * kernel through cuBLASLt on an H200's decode GEMMs, and split-K
 * configurations that were slower in the program were recorded as faster
 * (docs/cuda.md, "Timing behind queued work"). A program's stream is rarely
 * idle: the GPU is still busy with earlier work while the host issues the
 * call. The lead is a few memsets of a scratch buffer, sized once from a
 * timed memset so that together they keep the device busy for about
 * LEAD_US, longer than issuing a GEMM takes the host. */
#include "tuner/exec_cublas_internal.h"

#include <math.h>

#define LEAD_US 50.0               /* device time queued ahead of the start event */
#define LEAD_OPS 4                 /* ... in about this many memsets */
#define LEAD_MAX_OPS 8             /* ... at most */
#define LEAD_BYTES (32ull << 20)   /* the scratch (8 MiB when that much is not free) */
#define LEAD_MIN_BYTES (64u << 10) /* the smallest memset worth queuing */
#define LEAD_CAL_BYTES (8ull << 20)

/* One memset of n bytes of the scratch, on the stream the runs use. */
static aoe_exec_status fill(aoe_exec *ex, uint64_t n, unsigned v, char *detail, size_t len)
{
    CU_CHECK(ex, cuMemsetD32Async, (ex->lead, v, (size_t)(n / 4), NULL), AOE_EXEC_RUNTIME_ERROR);
    return AOE_EXEC_OK;
}

/* Device µs of a memset of LEAD_CAL_BYTES, itself behind one (so that the
 * host's cost of issuing it is not counted): the lesser of two. */
static aoe_exec_status memset_us(aoe_exec *ex, double *us, char *detail, size_t len)
{
    aoe_exec_status st;
    *us = HUGE_VAL;
    for (int i = 0; i < 2; i++) {
        float ms = 0;
        if ((st = fill(ex, LEAD_CAL_BYTES, 0, detail, len))) return st;
        CU_CHECK(ex, cuEventRecord, (ex->ev[0], NULL), AOE_EXEC_RUNTIME_ERROR);
        if ((st = fill(ex, LEAD_CAL_BYTES, 1, detail, len))) return st;
        CU_CHECK(ex, cuEventRecord, (ex->ev[1], NULL), AOE_EXEC_RUNTIME_ERROR);
        CU_CHECK(ex, cuEventSynchronize, (ex->ev[1]), AOE_EXEC_RUNTIME_ERROR);
        CU_CHECK(ex, cuEventElapsedTime, (&ms, ex->ev[0], ex->ev[1]), AOE_EXEC_RUNTIME_ERROR);
        if (1000.0 * ms < *us) *us = 1000.0 * ms;
    }
    return AOE_EXEC_OK;
}

aoe_exec_status aoe_cublas_lead_size(aoe_exec *ex, char *detail, size_t len)
{
    uint64_t have = LEAD_BYTES;
    ex->lead_ops = -1;
    if (ex->api.cu.cuMemAlloc(&ex->lead, have) != CUDA_SUCCESS) {
        have = LEAD_CAL_BYTES;
        if (ex->api.cu.cuMemAlloc(&ex->lead, have) != CUDA_SUCCESS) {
            ex->lead = 0;
            return AOE_EXEC_OK;
        }
    }
    double us;
    aoe_exec_status st = memset_us(ex, &us, detail, len);
    if (st) return st;
    if (!(us > 0) || !isfinite(us)) return AOE_EXEC_OK;
    double per_byte = us / (double)LEAD_CAL_BYTES;
    double want = LEAD_US / LEAD_OPS / per_byte;
    uint64_t bytes = want >= (double)have ? have : (uint64_t)want;
    if (bytes < LEAD_MIN_BYTES) bytes = LEAD_MIN_BYTES;
    bytes &= ~(uint64_t)3;
    double ops = ceil(LEAD_US / ((double)bytes * per_byte));
    ex->lead_bytes = bytes;
    ex->lead_ops = ops < 1 ? 1 : ops > LEAD_MAX_OPS ? LEAD_MAX_OPS : (int)ops;
    return AOE_EXEC_OK;
}

aoe_exec_status aoe_cublas_lead(aoe_exec *ex, char *detail, size_t len)
{
    aoe_exec_status st;
    for (int i = 0; i < ex->lead_ops; i++)
        if ((st = fill(ex, ex->lead_bytes, (unsigned)i, detail, len))) return st;
    return AOE_EXEC_OK;
}

void aoe_cublas_lead_describe(const aoe_exec *ex, char *out, size_t len)
{
    if (ex->lead_ops > 0)
        snprintf(out, len, "each timed run behind %d memsets of %llu KiB (about %.0f us queued)",
                 ex->lead_ops, (unsigned long long)(ex->lead_bytes >> 10), LEAD_US);
    else
        snprintf(out, len, "timed runs on an idle stream (no lead: %s)",
                 ex->lead ? "the memset could not be timed" : "no memory for its scratch");
}
