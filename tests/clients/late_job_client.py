#!/usr/bin/python3
"""Launches kernel `first`, waits until the background tuner has tuned it and
exited (the spool drained and no process holds SPOOL/tuner.lock), then
launches kernel `second`: a job queued after the tuner went idle and exited.
Usage: late_job_client.py SPOOL_DIR. Run with Debian's /usr/bin/python3."""
import fcntl
import glob
import os
import sys
import time

import numpy as np
import pyopencl as cl

SRC = """
__kernel void first(__global float *a) { int i = get_global_id(0); a[i] = a[i] * 2.0f + 1.0f; }
__kernel void second(__global float *a) { int i = get_global_id(0); a[i] = a[i] * 3.0f - 1.0f; }
"""


def tuner_gone(spool):
    if glob.glob(spool + "/*.job") or glob.glob(spool + "/*.running"):
        return False
    try:
        fd = os.open(spool + "/tuner.lock", os.O_RDONLY)
    except FileNotFoundError:
        return False  # not started yet
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def main():
    spool = sys.argv[1]
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    a = np.arange(1 << 16, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    prg = cl.Program(ctx, SRC).build()
    k1, k2 = prg.first, prg.second
    k1(q, a.shape, None, buf)
    q.finish()
    deadline = time.time() + 120
    while not tuner_gone(spool) and time.time() < deadline:
        time.sleep(0.2)
    print("tuner gone" if tuner_gone(spool) else "tuner still there", flush=True)
    k2(q, a.shape, None, buf)
    q.finish()
    cl.enqueue_copy(q, a, buf)
    print("checksum=%.1f" % float(a.sum()))


if __name__ == "__main__":
    main()
