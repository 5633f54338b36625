#!/usr/bin/env bash
# Third-party programs: the pyopencl examples from python-pyopencl-doc
# (median-filter.py, n-body.py), run headless (imageio is replaced by a stub
# that makes the input image and checksums the output; n-body runs without
# OpenGL). Under the shim with a fresh bank their output is identical to a
# run without it: once with PYOPENCL_NO_CACHE=1 (programs from source), and
# warm, where pyopencl creates the programs from its binary cache. Two of
# their NULL-local-size kernels (AOE_TUNE_OPS: medianFilter, Potential) get
# captured, tuned, and launched tuned; the others run as filtered operators.
#
# n-body is racy by itself: its integrators read every body's position and
# write positions in place, with only a work-group barrier between, so when
# PoCL's worker threads interleave its work-groups the positions after a step
# differ (4 of 30 runs without any shim on a loaded 2-core machine). Its
# initial state (centre of mass, energies: five kernels, the tuned Potential
# among them) must therefore be identical; after the steps only the energies
# are compared, within 1% (the race moves them by about 2e-4).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
ex=/usr/share/doc/python-pyopencl-doc/examples
[ -f "$ex/median-filter.py" ] && [ -f "$ex/n-body.py" ] || fail "python-pyopencl-doc is not installed"
mkdir -p "$T/stub"
cat >"$T/stub/imageio.py" <<'PY'
# Stand-in for imageio: a deterministic noisy image in, a checksum out.
import hashlib
import numpy as np
def imread(name):
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, size=(192, 256, 3)).astype(np.uint8)
def imsave(name, arr):
    h = hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()[:16]
    print("output checksum=%s" % h)
PY
export AOE_MAX_EVALS=3
# Two kernels tuned (the filter, and n-body's Potential, whose result the
# output check covers); the others run under the shim as filtered operators,
# which keeps the tuner's share of this test to a few seconds.
printf 'medianFilter\nPotential\n' >"$T/tune_ops"
export AOE_TUNE_OPS="$T/tune_ops"
export PYTHONPATH="$T/stub" XDG_CACHE_HOME="$T/cache" PYOPENCL_CTX=0
median() { (cd "$T" && "$PY" "$ex/median-filter.py") 2>/dev/null | grep 'checksum='; }
nbody() { "$PY" "$ex/n-body.py" -n 64 -i 2 2>/dev/null | grep -E 'Energy estimated|Center Of Mass'; }
# Whether n-body output $1 matches the reference $2 (see the top comment).
nbody_same() {
  [ "$(wc -l <<<"$1")" = "$(wc -l <<<"$2")" ] && [ "$(head -2 <<<"$1")" = "$(head -2 <<<"$2")" ] ||
    return 1
  "$PY" - "$1" "$2" <<'PY'
import re, sys
def energies(out):
    last = [l for l in out.splitlines() if l.startswith("Energy")][-1]
    return [float(v) for v in re.findall(r"(?:Potential|Kinetic)=(\S+)", last)]
got, ref = energies(sys.argv[1]), energies(sys.argv[2])
sys.exit(not (len(got) == len(ref) == 2 and all(abs(g - r) <= 0.01 * abs(r) for g, r in zip(got, ref))))
PY
}
ref_m=$(PYOPENCL_NO_CACHE=1 median)
ref_n=$(PYOPENCL_NO_CACHE=1 nbody)
[ -n "$ref_m" ] && [ -n "$ref_n" ] || fail "the examples do not run without the shim"
cmp_runs() { # label, then the environment for both programs
  local label=$1
  shift
  [ "$(env "$@" LD_PRELOAD="$HOOK" bash -c "$(declare -f median); PY=$PY T=$T ex=$ex median")" = "$ref_m" ] ||
    fail "median-filter output differs ($label)"
  local out
  out=$(env "$@" LD_PRELOAD="$HOOK" bash -c "$(declare -f nbody); PY=$PY ex=$ex nbody")
  nbody_same "$out" "$ref_n" || fail "n-body output differs ($label): $out (without the shim: $ref_n)"
}
cmp_runs "no cache, untuned" PYOPENCL_NO_CACHE=1
wait_drained "$AOE_WORK_PATH/spool" 300 # a loaded CI machine: minutes
"$AOE" bank list >"$T/bank.txt"
grep -q medianFilter "$T/bank.txt" ||
  fail "medianFilter not tuned: $(cat "$AOE_WORK_PATH"/spool/*.failed.txt "$AOE_WORK_PATH/spool/tuner.log" 2>&1 | tail -20)"
grep -qE ' Potential ' "$T/bank.txt" ||
  fail "no n-body kernel tuned: $(tail -20 "$AOE_WORK_PATH/spool/tuner.log")"
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
cmp_runs "no cache, tuned" PYOPENCL_NO_CACHE=1
hits=0
for r in "$AOE_WORK_PATH"/aoe_result_opat_*.json; do
  hits=$((hits + $(json "$r" 'sum(m["tuned_launches"] for m in r["OPAT"]["modified_operators"])')))
done
[ "$hits" -gt 0 ] || fail "no tuned launch in the second run"
# Warm: the first cached run stores binaries, the next creates programs from them.
cmp_runs "cache, cold"
cmp_runs "cache, warm (programs from binaries)"
wait_drained "$AOE_WORK_PATH/spool" 300 # a loaded CI machine: minutes
cmp_runs "cache, warm, tuned"
echo "shim_pyopencl_examples: ok ($hits tuned launches)"
