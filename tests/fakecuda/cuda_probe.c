/* Test client of the fake libcuda.so.1 (tests/integration/fake_cuda.sh),
 * linked against it like a program built with cuda.h: prints what the
 * device, memory and event calls answer. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name(CUresult r)
{
    const char *s = NULL;
    return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "?";
}

int main(int argc, char **argv)
{
    size_t big = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
    char dev_name[256];
    printf("before cuInit: %s\n", name(cuDeviceGetName(dev_name, sizeof dev_name, 0)));
    CUresult r = cuInit(0);
    printf("cuInit: %s\n", name(r));
    if (r) return 0;
    int drv = 0, sms = 0, maj = 0, min = 0, l2 = 0, n = 0;
    CUdevice dev;
    cuDeviceGetCount(&n);
    cuDeviceGet(&dev, 0);
    cuDeviceGetName(dev_name, sizeof dev_name, dev);
    cuDriverGetVersion(&drv);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    printf("device %d of %d: %s, %d SMs, cc %d.%d, driver %d, L2 %d\n", (int)dev, n, dev_name, sms,
           maj, min, drv, l2);
    CUdeviceptr p;
    printf("alloc without a context: %s\n", name(cuMemAlloc(&p, 64)));
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    r = cuMemAlloc(&p, 1000);
    printf("alloc 1000: %s, 256-aligned %d\n", name(r), p % 256 == 0);
    char in[1000], out[1000];
    for (int i = 0; i < 1000; i++) in[i] = (char)i;
    cuMemcpyHtoD(p, in, sizeof in);
    cuMemsetD8(p + 10, 0x7f, 5);
    cuMemcpyDtoH(out, p, sizeof out);
    printf("round trip %d, set %d\n", !memcmp(out, in, 10) && !memcmp(out + 15, in + 15, 985),
           out[10] == 0x7f && out[14] == 0x7f);
    printf("copy past the end: %s\n", name(cuMemcpyDtoH(out, p + 1, sizeof out)));
    size_t fr = 0, tot = 0;
    cuMemGetInfo(&fr, &tot);
    printf("used %zu of %zu\n", tot - fr, tot);
    CUdeviceptr q;
    if (big) printf("alloc %zu: %s\n", big, name(cuMemAlloc(&q, big)));
    CUresult f1 = cuMemFree(p), f2 = cuMemFree(p);
    printf("free: %s, again: %s\n", name(f1), name(f2));
    CUevent a, b;
    float ms = -1;
    cuEventCreate(&a, CU_EVENT_DEFAULT);
    cuEventCreate(&b, CU_EVENT_DEFAULT);
    printf("elapsed before record: %s\n", name(cuEventElapsedTime(&ms, a, b)));
    void (*advance)(double) = (void (*)(double))dlsym(RTLD_DEFAULT, "fakecuda_clock_advance_us");
    cuEventRecord(a, NULL);
    if (advance) advance(250.0);
    cuEventRecord(b, NULL);
    cuEventSynchronize(b);
    cuEventElapsedTime(&ms, a, b);
    printf("elapsed %.3f ms\n", ms);
    cuEventDestroy(a);
    cuEventDestroy(b);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
