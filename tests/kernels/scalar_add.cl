/* out[i] = 16 * in[i] + k * m: k and m are scalars the client changes from
 * run to run (tests/clients/scalar_add.c). STEP (a divisor of 256) sets how
 * many additions make 16 * in[i]: every value gives the same, exact result
 * (small integers), the default 1 takes 16 times the additions of 16. */
#ifndef STEP
#define STEP 1
#endif
__kernel void scalar_add(__global const float *in, __global float *out, int k, int m)
{
    size_t i = get_global_id(0);
    float x = in[i], acc = 0.0f;
    for (int j = 0; j < 256 / STEP; j++) acc += x;
    out[i] = acc * (float)STEP / 16.0f + (float)(k * m);
}
