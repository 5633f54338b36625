"""Reaches the driver as CuPy does: ctypes.CDLL('libcuda.so.1') and getattr
(a dlsym on the library's handle). Loads the fake image (kernels of
libfakecuda_kernels.so, loaded RTLD_GLOBAL so the fake driver finds them),
launches vadd with cuLaunchKernel and fill with cuLaunchCooperativeKernel,
prints the results. Usage: cuda_ctypes.py KERNELS_LIBRARY"""
import ctypes
import sys

ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
cu = ctypes.CDLL('libcuda.so.1')
IMAGE = b'AOEFAKECUBIN 1\narch sm_90\ndefine SCALE 2\nkernel vadd\nkernel fill\nhash 00000000000000aa\n'


def check(rc, what):
    if rc:
        sys.exit('%s: %d' % (what, rc))


check(cu.cuInit(0), 'cuInit')
ctx = ctypes.c_void_p()
check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0), 'retain')
check(cu.cuCtxSetCurrent(ctx), 'set current')
mod, vadd, fill = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(IMAGE)), 'load')
check(cu.cuModuleGetFunction(ctypes.byref(vadd), mod, b'vadd'), 'vadd')
check(cu.cuModuleGetFunction(ctypes.byref(fill), mod, b'fill'), 'fill')
n = 128
host_a = (ctypes.c_float * n)(*range(n))
host_b = (ctypes.c_float * n)(*[0.25 * i for i in range(n)])
bufs = [ctypes.c_uint64() for _ in range(3)]
for b in bufs:
    check(cu.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(4 * n)), 'alloc')
check(cu.cuMemcpyHtoD_v2(bufs[1], host_a, ctypes.c_size_t(4 * n)), 'h2d')
check(cu.cuMemcpyHtoD_v2(bufs[2], host_b, ctypes.c_size_t(4 * n)), 'h2d')
count = ctypes.c_int(n)
args = (ctypes.c_void_p * 4)(*[ctypes.addressof(x) for x in (bufs[0], bufs[1], bufs[2], count)])
u = ctypes.c_uint
for _ in range(3):
    check(cu.cuLaunchKernel(vadd, u(2), u(1), u(1), u(64), u(1), u(1), u(0), None, args, None),
          'launch')
out = (ctypes.c_float * n)()
check(cu.cuMemcpyDtoH_v2(out, bufs[0], ctypes.c_size_t(4 * n)), 'd2h')
print('vadd:', out[0], out[1], out[n - 1])
base = ctypes.c_uint(5)
fargs = (ctypes.c_void_p * 2)(ctypes.addressof(bufs[0]), ctypes.addressof(base))
check(cu.cuLaunchCooperativeKernel(fill, u(1), u(1), u(1), u(8), u(1), u(1), u(0), None, fargs),
      'coop')
ints = (ctypes.c_uint * n)()
check(cu.cuMemcpyDtoH_v2(ints, bufs[0], ctypes.c_size_t(4 * n)), 'd2h')
print('fill:', ints[0], ints[7])
