#!/usr/bin/env bash
# Replaying captured jobs: a kernel that reads an index buffer it was given
# READ_WRITE (not const) replays exactly what the program ran (the index
# buffer is never poisoned) and is tuned; with nothing captured
# (AOE_CAPTURE_LIMIT_MB=0) float32 synthetic indices crash the default, so the
# tuner retries with zero-filled buffers ("synthetic zeros"), and a kernel
# that needs the real indices fails with a reason that says so.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "tune_replay: $*" >&2; exit 1; }
PY=/usr/bin/python3
cat >"$T/prog.py" <<'PYEOF'
import numpy as np, pyopencl as cl
SRC = """
__kernel void gather_idx(__global int *idx, __global const float *src, __global float *out, int n)
{
    int i = get_global_id(0), j = idx[i];
    if (j < 0 || j >= n) ((__global volatile int *)0)[i] = 1; /* a bad index crashes */
    out[i] = src[j] * 2.0f;
}
__kernel void needs_real_idx(__global int *idx, __global float *out, int n)
{
    int i = get_global_id(0), j = idx[i];
    if (j <= 0 || j >= n) ((__global volatile int *)0)[i] = 1; /* zero crashes too */
    out[i] = (float)j;
}
"""
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, SRC).build()
n = 1024
mf = cl.mem_flags
idx = ((np.arange(n, dtype=np.int32) * 7 + 1) % n).astype(np.int32)
idx[idx == 0] = 1
src = np.arange(n, dtype=np.float32)
d_idx = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=idx)
d_src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=src)
d_out = cl.Buffer(ctx, mf.WRITE_ONLY, src.nbytes)
prg.gather_idx(q, (n,), None, d_idx, d_src, d_out, np.int32(n))
prg.needs_real_idx(q, (n,), None, d_idx, d_out, np.int32(n))
q.finish()
PYEOF
capture() { # capture limit (MiB), work dir
  env AOE_CAPTURE_LIMIT_MB="$1" AOE_WORK_PATH="$2" TUNE_BANK_PATH="$T/nobank" AOE_TUNE_MODE=offline \
    PYOPENCL_CTX=0 PYOPENCL_NO_CACHE=1 XDG_CACHE_HOME="$T/cache" LD_PRELOAD="$B/lib/libaoe_hook.so" \
    "$PY" "$T/prog.py" >/dev/null 2>&1 || fail "the program failed under the shim (limit $1)"
}
job_of() { # work dir, kernel name -> job file
  for f in "$1"/spool/*.job; do
    [ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["program"]["entry"])' "$f")" = "$2" ] &&
      { echo "$f"; return; }
  done
  fail "no job for $2 in $1/spool: $(ls "$1/spool")"
}
field() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]])' "$1" "$2"; }

# 1. Captured: the index buffer (READ_WRITE, read but never written) is an input.
capture 64 "$T/cap"
AOE_MAX_EVALS=3 "$B/bin/aoe" tune "$(job_of "$T/cap" gather_idx)" --bank "$T/bank" --json \
  >"$T/r1.json" 2>"$T/r1.err" || fail "captured gather_idx not tuned: $(cat "$T/r1.err")"
[ "$(field "$T/r1.json" replay)" = captured ] || fail "replay is not 'captured': $(cat "$T/r1.json")"
[ "$(field "$T/r1.json" evaluations)" -ge 1 ] || fail "no variant evaluated: $(cat "$T/r1.json")"
[ "$(field "$T/r1.json" failures)" -eq 0 ] || fail "variants failed: $(cat "$T/r1.json")"

# 2. Nothing captured: float32 indices crash, zeros replay.
capture 0 "$T/syn"
"$B/bin/aoe" tune "$(job_of "$T/syn" gather_idx)" --dry-run --json >"$T/r2.json" 2>"$T/r2.err" ||
  fail "synthetic gather_idx not replayed: $(cat "$T/r2.json" "$T/r2.err")"
[ "$(field "$T/r2.json" replay)" = "synthetic zeros" ] || fail "not replayed with zeros: $(cat "$T/r2.json")"

# 3. A kernel that crashes on both kinds of synthetic data: one clear reason.
set +e
"$B/bin/aoe" tune "$(job_of "$T/syn" needs_real_idx)" --dry-run >"$T/r3.out" 2>"$T/r3.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "expected exit 1, got $rc"
grep -q 'FAILED: cannot be replayed on synthetic data: args\[0\], args\[1\] not captured' "$T/r3.out" ||
  fail "unclear reason: $(cat "$T/r3.out")"
grep -q 'with float32 data: crash: .*with zeros: crash: ' "$T/r3.out" || fail "attempts not named: $(cat "$T/r3.out")"
echo "tune_replay: ok"
