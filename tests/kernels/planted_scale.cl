// Planted bad variants for the tuner's tests: out[i] = 2 * in[i], except
// that some values of MODE (declared in tests/tunables/planted.json) break
// the kernel on purpose. MODE 0 and 6 are correct.
#ifndef MODE
#define MODE 0
#endif

__kernel void planted_scale(__global const float *in, __global float *out, const int n)
{
    const int i = get_global_id(0);
    if (i >= n) return;
#if MODE == 1
    // Segfault: a write about 4 TiB past the buffer (unmapped memory).
    if (i == 0) {
        volatile __global float *far = out + ((long)n << 40);
        *far = 1.0f;
    }
    out[i] = 2.0f * in[i];
#elif MODE == 2
    // Never terminates (the watchdog must kill it).
    volatile int spin = n;
    while (spin > 0) spin = spin | 1;
    out[i] = 2.0f * in[i];
#elif MODE == 3
    // Wrong result.
    out[i] = 2.0f * in[i] + 0.5f;
#elif MODE == 4
    // Writes one element past the end (lands in the executor's guard zone).
    out[i] = 2.0f * in[i];
    if (i == n - 1) out[n] = 0.0f;
#elif MODE == 5
    // Leaves the last element unwritten.
    if (i < n - 1) out[i] = 2.0f * in[i];
#else
    out[i] = in[i] + in[i];
#endif
}
