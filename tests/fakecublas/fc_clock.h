/* The simulated time each computed GEMM "takes" (the catalogue's cost model),
 * kept per library: a tuner on the fake measures a candidate by reading
 * fakecublasLt_last_time_us() / fakecublas_last_time_us() after the call
 * (dlsym on the library it loaded), instead of timing it with CUDA events. */
#ifndef FC_CLOCK_H
#define FC_CLOCK_H

#include <stdint.h>

void fc_clock_add(double us);
double fc_clock_last(void);
double fc_clock_total(void);
uint64_t fc_clock_count(void);

#endif
