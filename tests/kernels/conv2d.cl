// 2-D convolution with a (2R+1)x(2R+1) filter, zero padding at the borders.
// Launch: global (W / PX, H), NULL local size (work-group size is tuned).
// PX output pixels per work-item along x (etc/tunables/conv2d.json); every
// pixel is summed in the same order whatever PX is.
#ifndef PX
#define PX 1
#endif

__kernel void conv2d(__global const float *in, __global const float *filt, __global float *out,
                     const int W, const int H, const int R)
{
    const int x0 = get_global_id(0) * PX;
    const int y = get_global_id(1);
    const int F = 2 * R + 1;
    for (int p = 0; p < PX; p++) {
        const int x = x0 + p;
        float acc = 0.0f;
        for (int fy = -R; fy <= R; fy++) {
            const int yy = y + fy;
            if (yy < 0 || yy >= H) continue;
            for (int fx = -R; fx <= R; fx++) {
                const int xx = x + fx;
                if (xx < 0 || xx >= W) continue;
                acc += in[yy * W + xx] * filt[(fy + R) * F + (fx + R)];
            }
        }
        out[y * W + x] = acc;
    }
}
