/* Reaches the driver the way the CUDA runtime does (docs: CUDA-NOTES E1):
 * dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2"), the empty-symbol
 * probe, cuInit, cuGetProcAddress itself at 11030 (4 arguments) and 12000
 * (5 arguments), then every function through them, the launch entry points
 * with and without CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM. Prints
 * each answer (status, symbolStatus, which launch variant the fake driver
 * ran, results), the same with and without the shim. */
#include "cuda_driver_common.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static PFN_cuGetProcAddress_v12000 gpa5;
static PFN_cuGetProcAddress_v11030 gpa4;
static void *drv;

static void *get(const char *sym, int version, cuuint64_t flags)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st = 99;
    CUresult r = gpa5(sym, &p, version, flags, &st);
    printf("lookup %s v%d f%llu: rc %d status %d %s\n", sym, version, (unsigned long long)flags,
           (int)r, (int)st, p ? "found" : "null");
    return p;
}

int main(void)
{
    drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv) return fprintf(stderr, "no libcuda.so.1: %s\n", dlerror()), 1;
    gpa5 = (PFN_cuGetProcAddress_v12000)dlsym(drv, "cuGetProcAddress_v2");
    if (!gpa5) return fprintf(stderr, "no cuGetProcAddress_v2\n"), 1;
    print_owner("dlsym cuGetProcAddress_v2", (void *)gpa5);

    get("", 0, 0); /* cudart's probe */
    PFN_cuInit_v2000 init = (PFN_cuInit_v2000)get("cuInit", 2000, 0);
    CHECK(init(0));
    /* cuGetProcAddress itself, in both ABIs */
    gpa4 = (PFN_cuGetProcAddress_v11030)get("cuGetProcAddress", 11030, 0);
    PFN_cuGetProcAddress_v12000 again =
        (PFN_cuGetProcAddress_v12000)get("cuGetProcAddress", 12000, 0);
    print_owner("cuGetProcAddress@11030", (void *)gpa4);
    print_owner("cuGetProcAddress@12000", (void *)again);
    void *p4 = NULL;
    CUresult r4 = gpa4("cuLaunchKernel", &p4, 4000, 0);
    printf("gpa4 cuLaunchKernel: rc %d %s\n", (int)r4, p4 ? "found" : "null");
    gpa5 = again;
    /* unknown names, versions too old or too new: answers passed through */
    get("cuNoSuchFunction", 12000, 0);
    get("cuFuncGetName", 12000, 0);
    get("cuLaunchKernel", 99000, 0);
    /* not wrapped: the driver's own pointer */
    void *alloc = get("cuMemAlloc", 3020, 0);
    printf("cuMemAlloc same as dlsym: %s\n", alloc == dlsym(drv, "cuMemAlloc_v2") ? "yes" : "no");
    print_owner("cuMemAlloc", alloc);

    PFN_cuDevicePrimaryCtxRetain_v7000 retain =
        (PFN_cuDevicePrimaryCtxRetain_v7000)get("cuDevicePrimaryCtxRetain", 7000, 0);
    PFN_cuCtxSetCurrent_v4000 set_current =
        (PFN_cuCtxSetCurrent_v4000)get("cuCtxSetCurrent", 4000, 0);
    CUcontext ctx;
    CHECK(retain(&ctx, 0));
    CHECK(set_current(ctx));
    PFN_cuModuleLoadData_v2000 load = (PFN_cuModuleLoadData_v2000)get("cuModuleLoadData", 2000, 0);
    PFN_cuModuleGetFunction_v2000 getfn =
        (PFN_cuModuleGetFunction_v2000)get("cuModuleGetFunction", 2000, 0);
    PFN_cuMemcpyDtoH_v3020 d2h = (PFN_cuMemcpyDtoH_v3020)get("cuMemcpyDtoH", 3020, 0);
    PFN_cuLaunchKernel_v4000 launch = (PFN_cuLaunchKernel_v4000)get("cuLaunchKernel", 4000, 0);
    PFN_cuLaunchKernel_v7000_ptsz launch_pt = (PFN_cuLaunchKernel_v7000_ptsz)get(
        "cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    PFN_cuLaunchKernelEx_v11060_ptsz launch_ex_pt = (PFN_cuLaunchKernelEx_v11060_ptsz)get(
        "cuLaunchKernelEx", 11060, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    PFN_cuLaunchCooperativeKernel_v9000 coop =
        (PFN_cuLaunchCooperativeKernel_v9000)get("cuLaunchCooperativeKernel", 9000, 0);
    /* a per-thread request for a function without a per-thread form: the legacy one */
    void *getfn_pt =
        get("cuModuleGetFunction", 2000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    printf("cuModuleGetFunction per-thread same: %s\n", getfn_pt == (void *)getfn ? "yes" : "no");
    print_owner("cuLaunchKernel", (void *)launch);
    print_owner("cuLaunchKernel per-thread", (void *)launch_pt);
    print_owner("cuLaunchKernelEx per-thread", (void *)launch_ex_pt);
    const char *(*last)(void) = (const char *(*)(void))dlsym(drv, "fakecuda_last_launch");
    if (!alloc || !load || !getfn || !d2h || !launch || !launch_pt || !launch_ex_pt || !coop ||
        !last)
        return fprintf(stderr, "missing entry points\n"), 1;

    CUmodule mod;
    CUfunction fill;
    CHECK(load(&mod, fake_image));
    CHECK(getfn(&fill, mod, "fill"));
    CUdeviceptr buf;
    CHECK(((PFN_cuMemAlloc_v3020)alloc)(&buf, 64 * sizeof(unsigned)));
    unsigned base = 100;
    void *args[] = {&buf, &base};
    CHECK(launch(fill, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    printf("legacy launch ran %s\n", last());
    base = 200;
    CHECK(launch_pt(fill, 2, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    printf("per-thread launch ran %s\n", last());
    CUlaunchConfig cfg = {.gridDimX = 4,
                          .gridDimY = 1,
                          .gridDimZ = 1,
                          .blockDimX = 16,
                          .blockDimY = 1,
                          .blockDimZ = 1};
    base = 300;
    CHECK(launch_ex_pt(&cfg, fill, args, NULL));
    printf("per-thread Ex launch ran %s\n", last());
    CHECK(coop(fill, 1, 1, 1, 8, 1, 1, 0, NULL, args));
    printf("cooperative launch ran %s\n", last());
    unsigned out[64];
    CHECK(d2h(out, buf, sizeof out));
    printf("fill: %u %u %u %u\n", out[0], out[7], out[8], out[63]);
    PFN_cuModuleUnload_v2000 unload = (PFN_cuModuleUnload_v2000)get("cuModuleUnload", 2000, 0);
    PFN_cuMemFree_v3020 mem_free = (PFN_cuMemFree_v3020)get("cuMemFree", 3020, 0);
    if (!unload || !mem_free) return fprintf(stderr, "missing entry points\n"), 1;
    CHECK(mem_free(buf));
    CHECK(unload(mod));

    /* A fatbin as the CUDA runtime hands one over (libtorch_cuda's add up to
     * hundreds of MB), its body unreadable: the driver reads what it needs,
     * a shim that read the whole image would crash here. */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *map =
        mmap(NULL, (size_t)(3 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return perror("mmap"), 1;
    unsigned char *fatbin = map + page - 16; /* {u32 magic, u16 version, u16 header, u64 body} */
    const uint32_t magic = 0xBA55ED50u;
    const uint16_t version = 1, header = 16;
    const uint64_t body = (uint64_t)(2 * page);
    memcpy(fatbin, &magic, 4), memcpy(fatbin + 4, &version, 2), memcpy(fatbin + 6, &header, 2);
    memcpy(fatbin + 8, &body, 8);
    if (mprotect(map + page, (size_t)(2 * page), PROT_NONE)) return perror("mprotect"), 1;
    CUmodule fat;
    CHECK(load(&fat, fatbin));
    CHECK(unload(fat));
    printf("fatbin loaded without its body read\n");
    munmap(map, (size_t)(3 * page));
    return 0;
}
