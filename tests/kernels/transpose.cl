// Matrix transpose: out (W rows x H columns) = in (H rows x W columns)^T.
// Launch: global (W, H), NULL local size (work-group size is tuned).
__kernel void transpose(__global const float *in, __global float *out, const int W, const int H)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x < W && y < H) out[x * H + y] = in[y * W + x];
}
