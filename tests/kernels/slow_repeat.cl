// A kernel that takes seconds, for the tuner's slow-kernel protocol: each
// work-item hashes its input `iters` times, REDO times over. Every pass
// recomputes the same value from scratch (`zero` is 0 at run time, unknown
// to the compiler, so no pass can be left out), so the output does not depend
// on REDO: REDO=1 (declared in tests/tunables/slow_repeat.json) does a
// quarter of the default's work with bit-identical output.
#ifndef REDO
#define REDO 4
#endif

__kernel void slow_repeat(__global const uint *in, __global uint *out, const int iters,
                          const uint zero)
{
    const int i = get_global_id(0);
    uint h = 0;
    for (int r = 0; r < REDO; r++) {
        uint x = in[i] ^ (zero * (uint)r);
        for (int k = 0; k < iters; k++) x = (x * 1664525u + 1013904223u) ^ (x >> 13);
        h = x + (h & zero);
    }
    out[i] = h;
}
