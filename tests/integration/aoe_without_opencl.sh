#!/usr/bin/env bash
# `aoe` links no OpenCL library: with every libOpenCL hidden (a private mount
# namespace binds /dev/null over each), the bank commands, `config` and
# simulated tuning still work, and tuning a real job fails with one line that
# names the missing library.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
AOE=$B/bin/aoe
fail() { echo "aoe_without_opencl: $*" >&2; exit 1; }

if ! unshare -m true 2>/dev/null; then
  echo "aoe_without_opencl: cannot run: unshare -m needs root (CI runs as root); not tested here"
  exit 0
fi

ldd "$AOE" | grep -qi libopencl && fail "aoe links libOpenCL: $(ldd "$AOE" | grep -i libopencl)"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TUNE_BANK_PATH=$T/bank
# Prepared while OpenCL is still visible: a job and a record for it.
"$B/clients/transpose" --emit-job "$T/t.job" >/dev/null
/usr/bin/python3 "$S/tests/fakecl/record_for_job.py" "$T/t.job" 8 >"$T/rec.json"

# With OpenCL present, only the worker process loads it: the parent (the pid
# the loader's "initialize program" line names) never does.
TUNE_BANK_PATH=$T/bank0 AOE_MAX_EVALS=2 LD_DEBUG=files "$AOE" tune "$T/t.job" >/dev/null \
  2>"$T/ld.txt" || fail "aoe tune JOB failed with OpenCL present: $(tail -5 "$T/ld.txt")"
parent=$(awk '/initialize program: .*\/aoe$/ {sub(":", "", $1); print $1; exit}' "$T/ld.txt")
[ -n "$parent" ] || fail "no parent pid in the loader's trace"
grep -q "^ *$parent:.*libOpenCL" "$T/ld.txt" &&
  fail "the aoe parent loaded libOpenCL: $(grep -m1 "^ *$parent:.*libOpenCL" "$T/ld.txt")"
grep -q "libOpenCL.so.1.*dynamically loaded by" "$T/ld.txt" || fail "no worker loaded libOpenCL"

# Every libOpenCL the loader could find, resolved through links.
libs=$(ldconfig -p | awk '/libOpenCL\.so/ {print $NF}' | xargs -r readlink -f | sort -u)
[ -n "$libs" ] || fail "no libOpenCL in the loader cache: nothing to hide"

unshare -m env AOE="$AOE" T="$T" S="$S" LIBS="$libs" bash -euo pipefail -c '
  fail() { echo "aoe_without_opencl: $*" >&2; exit 1; }
  mount --make-rprivate /
  for l in $LIBS; do mount --bind /dev/null "$l"; done
  [ -d /etc/OpenCL/vendors ] && mount -t tmpfs -o size=1m none /etc/OpenCL/vendors
  /usr/bin/python3 -c "import ctypes; ctypes.CDLL(\"libOpenCL.so.1\")" 2>/dev/null &&
    fail "libOpenCL.so.1 is still loadable: the test hides nothing"

  "$AOE" --version >/dev/null || fail "aoe --version failed"
  "$AOE" config >/dev/null || fail "aoe config failed"
  "$AOE" bank import "$T/rec.json" >/dev/null || fail "aoe bank import failed"
  "$AOE" bank stats >/dev/null || fail "aoe bank stats failed"
  [ "$("$AOE" bank list | grep -c transpose)" -ge 1 ] || fail "aoe bank list shows no record"
  "$AOE" bank export -o "$T/out.json" || fail "aoe bank export failed"
  "$AOE" bank --bank "$T/bank2" import "$T/out.json" >/dev/null || fail "re-import failed"
  "$AOE" tune --simulate "$S/tests/data/gemm_pocl.json.gz" --max-evals 12 --runs 2 \
    >"$T/sim.txt" || fail "aoe tune --simulate failed: $(cat "$T/sim.txt")"
  grep -q "^random " "$T/sim.txt" || fail "no simulation table: $(cat "$T/sim.txt")"

  rc=0
  "$AOE" tune "$T/t.job" >/dev/null 2>"$T/tune.out" || rc=$?
  [ "$rc" = 1 ] || fail "aoe tune JOB exited $rc, not 1: $(cat "$T/tune.out")"
  [ "$(wc -l <"$T/tune.out")" = 1 ] || fail "not one line on stderr: $(cat "$T/tune.out")"
  grep -q "OpenCL runtime not available: .*libOpenCL\.so\.1.*install ocl-icd-libopencl1" \
    "$T/tune.out" || fail "unclear message: $(cat "$T/tune.out")"
  echo "aoe tune JOB without OpenCL: $(cat "$T/tune.out")"
'
echo "ok: aoe links no libOpenCL; bank, config and --simulate work without it"
