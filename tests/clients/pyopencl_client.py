#!/usr/bin/python3
"""pyopencl test client: a 2-D stencil launched with a NULL local size (the
runtime picks the work-group size, so AOE may tune it). Prints the median
kernel time from profiling events and, with --checksum, a checksum of the
output to compare runs bit for bit. Run with Debian's /usr/bin/python3."""
import argparse
import hashlib
import os
import time

import numpy as np
import pyopencl as cl

SRC = """
__kernel void blur2d(__global const float *in, __global float *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);
            acc += in[yy * w + xx];
        }
    out[y * w + x] = acc / 25.0f;
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--checksum", action="store_true")
    ap.add_argument("--until-file", help="keep launching until this file exists (at most 120 s)")
    ap.add_argument("--pause-ms", type=float, default=0, help="sleep this long after each launch")
    a = ap.parse_args()
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prg = cl.Program(ctx, SRC).build()
    knl = prg.blur2d
    n = a.size
    rng = np.random.default_rng(7)
    host = rng.integers(0, 100, size=n * n).astype(np.float32)
    mf = cl.mem_flags
    d_in = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host)
    d_out = cl.Buffer(ctx, mf.WRITE_ONLY, host.nbytes)
    times = []
    deadline = time.time() + 120
    while len(times) < a.repeat or (
        a.until_file and not os.path.exists(a.until_file) and time.time() < deadline
    ):
        ev = knl(q, (n, n), None, d_in, d_out, np.int32(n), np.int32(n))
        ev.wait()
        times.append((ev.profile.end - ev.profile.start) / 1000.0)
        if a.pause_ms > 0:
            time.sleep(a.pause_ms / 1000.0)
    out = np.empty_like(host)
    cl.enqueue_copy(q, out, d_out)
    q.finish()
    print("pyopencl_client: size=%d kernel_us=%.1f launches=%d" % (n, float(np.median(times)), len(times)))
    if a.checksum:
        print("checksum=%s" % hashlib.sha256(out.tobytes()).hexdigest()[:16])


if __name__ == "__main__":
    main()
