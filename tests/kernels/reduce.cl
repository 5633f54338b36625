// Sum reduction, first level: work-item i sums in[i], in[i+G], in[i+2G], ...
// (G = global size) into partial[i]; the host adds the partials. NULL local
// size, and every work-item writes exactly its own partial, so any
// work-group size gives the same bits. UNROLL keeps the summation order.
#ifndef UNROLL
#define UNROLL 4
#endif

__kernel void reduce_sum(__global const float *in, __global float *partial, const int n)
{
    const int g = get_global_size(0);
    int i = get_global_id(0);
    float acc = 0.0f;
    for (; i + (UNROLL - 1) * g < n; i += UNROLL * g)
        for (int u = 0; u < UNROLL; u++) acc += in[i + u * g];
    for (; i < n; i += g) acc += in[i];
    partial[get_global_id(0)] = acc;
}
