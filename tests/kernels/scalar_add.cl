/* out[i] = 16 * in[i] + k: k is a scalar the client changes from run to run
 * (tests/clients/scalar_add.c). UNROLL (a divisor of 16) only reshapes the
 * loop: every value gives the same, exact result. */
#ifndef UNROLL
#define UNROLL 1
#endif
__kernel void scalar_add(__global const float *in, __global float *out, int k)
{
    size_t i = get_global_id(0);
    float x = in[i], acc = 0.0f;
    for (int j = 0; j < 16; j += UNROLL)
        for (int u = 0; u < UNROLL; u++) acc += x;
    out[i] = acc + (float)k;
}
