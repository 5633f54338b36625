k
__global__ void k(float *a, const float *b, const float *c, int n) {}
extern "C" { __global__ void __launch_bounds__(128) v(__half *h, size_t n); }
template <class T> __global__ void t(T *p) {}
