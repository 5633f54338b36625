// Kernels with known parameter lists for the .nv.info reader's test
// (tests/unit/test_cuda_nvinfo.c); compiled into sm90.cubin by make.sh.
struct S {
    int a;
    double b;
    char c;
}; // 24 bytes, 8-aligned

extern "C" __global__ void k_ints(int a, int b, unsigned c) {}
__global__ void k_ptrs(float *c, const float *a, const float *b, int n)
{
    if (n) c[0] = a[0] + b[0];
}
extern "C" __global__ void k_struct(S s, float *o) { o[0] = s.a + s.b + s.c; }
extern "C" __global__ void k_align(char c, double d, short s, float *o) { o[0] = c + d + s; }
extern "C" __global__ void k_many(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                                  int a8, int a9, int a10, int a11, int a12, int a13, int a14,
                                  int a15, int a16, int a17, int a18, int a19, double *o)
{
    o[0] = a0 + a19;
}
extern "C" __global__ void k_none() {}
template <typename T> __global__ void k_tmpl(T *p, T v) { p[0] = v; }
template __global__ void k_tmpl<double>(double *, double);
