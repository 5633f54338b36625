/* What the fake libcuda.so.1 exports beyond the real driver API (README.md):
 * a simulated clock other test doubles (a fake kernel launch) may advance,
 * and the device memory in use. dlsym on the loaded library finds them; the
 * real driver has none. */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stddef.h>

/* Adds us microseconds to the fake driver's own clock (events stamp it). */
void fakecuda_clock_advance_us(double us);
/* What a cuEventRecord now would stamp, in microseconds. */
double fakecuda_clock_us(void);
/* Bytes currently allocated with cuMemAlloc. */
size_t fakecuda_mem_used(void);

#endif
