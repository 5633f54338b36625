"""The NVRTC programs of nvrtc_client.c through Python ctypes (CuPy's way:
ctypes.CDLL on libnvrtc.so.13, functions found with dlsym), printing the
same lines, so the C and Python runs compare line by line
(tests/integration/shim_nvrtc.sh). Under the test build of the shim it asks
the shim's lookup (aoe_nvrtc_probe) about every output, as the C client."""
import ctypes
import sys

nv = ctypes.CDLL("libnvrtc.so.13")  # RTLD_LOCAL, as ctypes does by default
nv.nvrtcGetErrorString.restype = ctypes.c_char_p
prog_t = ctypes.c_void_p
try:
    probe = ctypes.CDLL(None).aoe_nvrtc_probe
    probe.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
except AttributeError:
    probe = None


def err(r):
    return nv.nvrtcGetErrorString(r).decode()


def cstrs(items):
    arr = (ctypes.c_char_p * max(1, len(items)))()
    for i, s in enumerate(items):
        arr[i] = s.encode()
    return arr


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def ask(what, img):
    if probe:
        desc = ctypes.create_string_buffer(4096)
        if probe(img, len(img), desc, 4096):
            print("tracked %s: %s" % (what, desc.value.decode()))
        else:
            print("untracked %s" % what)


def show(what, img):
    if len(img) > 7 and img.startswith(b"AOEFAKE"):
        sys.stdout.write("%s:\n%s" % (what, img.rstrip(b"\0").decode()))
    else:
        print("%s: %d bytes, fnv %016x" % (what, len(img), fnv1a(img)))
    ask(what, img)


def compile_(label, src, headers, opts, exprs):
    p = prog_t()
    hs = cstrs([h for h, _ in headers])
    ns = cstrs([n for _, n in headers])
    r = nv.nvrtcCreateProgram(ctypes.byref(p), src.encode(), label.encode(), len(headers),
                              hs if headers else None, ns if headers else None)
    print("== %s\ncreate: %s" % (label, err(r)))
    if r:
        return
    for e in exprs:
        print("name expression %s: %s" % (e, err(nv.nvrtcAddNameExpression(p, e.encode()))))
    r = nv.nvrtcCompileProgram(p, len(opts), cstrs(opts) if opts else None)
    print("compile: %s" % err(r))
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(p, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value + 1)
    nv.nvrtcGetProgramLog(p, log)
    print("log (%d bytes): %s" % (n.value, log.value.decode()))
    ptx, cubin = ctypes.c_size_t(), ctypes.c_size_t()
    rp = nv.nvrtcGetPTXSize(p, ctypes.byref(ptx))
    rc = nv.nvrtcGetCUBINSize(p, ctypes.byref(cubin))
    print("ptx size: %s %d, cubin size: %s %d" % (err(rp), ptx.value, err(rc), cubin.value))
    kept = []  # a module is loaded from them after the program's end
    if not r and ptx.value > 1:
        buf = ctypes.create_string_buffer(ptx.value)
        g = nv.nvrtcGetPTX(p, buf)
        print("get ptx: %s" % err(g))
        if not g:
            show("ptx", buf.raw)
            kept.append(("ptx", buf.raw))
    if cubin.value > 0:
        buf = ctypes.create_string_buffer(cubin.value)
        g = nv.nvrtcGetCUBIN(p, buf)
        print("get cubin: %s" % err(g))
        if not g:
            show("cubin", buf.raw[:cubin.value])
            kept.append(("cubin", buf.raw[:cubin.value]))
    for e in exprs:
        low = ctypes.c_char_p()
        g = nv.nvrtcGetLoweredName(p, e.encode(), ctypes.byref(low))
        print("lowered %s: %s %s" % (e, err(g), "-" if g else low.value.decode()))
    print("destroy: %s" % err(nv.nvrtcDestroyProgram(ctypes.byref(p))))
    for what, img in kept:
        ask(what + " after destroy", img)


def recompile():
    p = prog_t()
    r = nv.nvrtcCreateProgram(ctypes.byref(p), b'extern "C" __global__ void k(int *x) { x[0] = X; }\n',
                              b"recompile.cu", 0, None, None)
    print("== recompile.cu\ncreate: %s" % err(r))
    imgs = []
    for i in (1, 2):
        print("compile %d: %s" % (i, err(nv.nvrtcCompileProgram(p, 2, cstrs(["-DX=%d" % i, "-arch=sm_90"])))))
        n = ctypes.c_size_t()
        if nv.nvrtcGetCUBINSize(p, ctypes.byref(n)) or not n.value:
            continue
        buf = ctypes.create_string_buffer(n.value)
        if nv.nvrtcGetCUBIN(p, buf):
            continue
        show("cubin %d" % i, buf.raw[:n.value])
        imgs.append((i, buf.raw[:n.value]))
    print("name expression after compiling: %s" % err(nv.nvrtcAddNameExpression(p, b"k")))
    print("destroy: %s" % err(nv.nvrtcDestroyProgram(ctypes.byref(p))))
    for i, img in imgs:
        ask("cubin %d after destroy" % i, img)


TILE_H = ('#ifndef TILE_K\n#define TILE_K 4\n#endif\n'
          'extern "C" { __global__ void tile_fill(float *p, int n) { if (n) p[0] = TILE_K; } }\n')
GEMM = ('#include "tile.h"\n'
        '#ifndef TILE_M\n#define TILE_M 16\n#endif\n'
        '#ifndef TILE_N\n#define TILE_N 8\n#endif\n'
        '// __global__ void commented_out(void) {}\n'
        'extern "C" __global__ void __launch_bounds__(256)\n'
        'gemm_tiled(const float *__restrict__ a, const float *b, float *c, int n)\n'
        '{\n    if (n > TILE_M * TILE_N * BLOCK) c[0] = a[0] * b[0];\n}\n'
        '__global__ void scale(float *x, float s, unsigned n) { if (n) x[0] *= s; }\n')

major, minor = ctypes.c_int(), ctypes.c_int()
nv.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
print("nvrtc %d.%d" % (major.value, minor.value))
compile_("tiled_gemm.cu", GEMM, [(TILE_H, "tile.h")],
         ["-DBLOCK=128", "--gpu-architecture=sm_90", "-std=c++17", "-I/nonexistent/include", "-D", "TILE_N=32",
          "-default-device"], ["gemm_tiled", "&scale"])
compile_("tiled_gemm_ptx.cu", GEMM, [(TILE_H, "tile.h")], ["-arch=compute_90", "-DBLOCK=64"], [])
compile_("broken.cu", "#ifndef TILE_M\n#error TILE_M must be set\n#endif\n", [], [], [])
compile_("bad_arch.cu", 'extern "C" __global__ void k(void) {}\n', [], ["-arch=sm_10"], [])
recompile()
