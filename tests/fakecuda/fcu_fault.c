/* Sticky errors of the fake driver: a fake kernel that "faults"
 * (fakecuda_fault: an illegal address, a launch failure, ...) leaves the
 * process' context unusable, as on a real GPU: every later call that needs a
 * context answers that error (fcu_need_context), until the process ends.
 * The fake has one device and its primary context; a fault loses it. */
#include "fcu_internal.h"

#include <stdatomic.h>

static atomic_int g_sticky; /* a CUresult; CUDA_SUCCESS while none */

CUresult fcu_sticky(void)
{
    return (CUresult)atomic_load(&g_sticky);
}

void fcu_fault(int cuda_error)
{
    int none = CUDA_SUCCESS;
    if (cuda_error != CUDA_SUCCESS) atomic_compare_exchange_strong(&g_sticky, &none, cuda_error);
}
