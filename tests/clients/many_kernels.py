#!/usr/bin/python3
"""pyopencl test client: builds one program of N kernels (k0, k1, ...) and
launches each once with a NULL local size on its own buffer of --kib KiB, so
a shim sees N distinct operators. Run with Debian's /usr/bin/python3."""
import argparse

import numpy as np
import pyopencl as cl


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernels", type=int, default=6)
    ap.add_argument("--kib", type=int, default=4)
    a = ap.parse_args()
    src = "\n".join(
        "__kernel void k%d(__global float *a) { size_t i = get_global_id(0); a[i] = a[i] * %d.0f + 1.0f; }"
        % (i, i + 2) for i in range(a.kernels))
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, src).build()
    n = a.kib * 256
    host = np.arange(n, dtype=np.float32)
    for i in range(a.kernels):
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        getattr(prg, "k%d" % i)(q, (n,), None, buf)
        out = np.empty_like(host)
        cl.enqueue_copy(q, out, buf)
        assert out[1] == 1.0 * (i + 2) + 1.0, out[:4]
    print("launched %d kernels" % a.kernels)


if __name__ == "__main__":
    main()
