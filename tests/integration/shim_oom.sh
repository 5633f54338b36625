#!/usr/bin/env bash
# The shim when its memory runs out: real programs run under the shim with
# tests/failalloc preloaded before it, which makes every Nth allocation by the
# shim and the libraries it calls (cJSON, LMDB, xxHash, libunwind, libelf)
# fail, for many N. The program's own allocations and its runtime's are left
# alone. Every run must exit 0 with output bit-identical to a run without the
# shim, must have had allocations failed (counted by failalloc, so this test
# fails if the injection stops working), and its messages must not blame the
# input (valid tunables files, jobs, the device) for what memory caused.
# Paths: a miss that captures a job (C programs, 4 threads, pyopencl),
# records that arrive while the program runs, a hit whose policy builds a
# variant program in the background (gemm with -D values), and where the CUDA
# test doubles are built the cuBLAS and NVRTC hooks.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
need_failalloc shim_oom
export AOE_TUNE_MODE=offline # jobs are captured, no tuner starts
export FAILALLOC_OBJECTS=libaoe_hook.so:libcjson.so:liblmdb.so:libxxhash.so:libunwind.so:libelf.so
export FAILALLOC_REPORT=$T/report
mkdir -p "$T/report"
runs=0 failed_total=0

# sweep NAME EXE "N..." CMD...: the program (its executable's file name EXE,
# so that only it fails allocations) under the shim failing every Nth
# allocation, for each N; its stdout minus timings must equal a run without
# (with OK_LINES=K set: K lines ending ": ok", for a program that says which
# algorithm ran, which depends on whether the shim could apply its record).
sweep() {
  local name=$1 exe=$2 evs=$3 want out rc e f n
  shift 3
  want=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$@" 2>/dev/null | sed 's/kernel_us=[0-9.]* //')
  for e in $evs; do
    rm -f "$T"/report/*
    rc=0
    out=$(FAILALLOC_EVERY=$e FAILALLOC_EXE=$exe LD_PRELOAD="$FAIL:$HOOK" "$@" \
      2>"$T/err") || rc=$?
    [ $rc = 0 ] || fail "$name, every $e allocations failing: exit status $rc: $(cat "$T/err")"
    if [ -n "${OK_LINES:-}" ]; then
      [ "$(grep -c ': ok$' <<<"$out")" = "$OK_LINES" ] ||
        fail "$name, every $e: not $OK_LINES correct results: $out $(cat "$T/err")"
    else
      [ "$(sed 's/kernel_us=[0-9.]* //' <<<"$out")" = "$want" ] ||
        fail "$name, every $e: output differs: $out (want $want) $(cat "$T/err")"
    fi
    # memory, not the (valid) files and jobs, is what is short: the messages say so
    ! grep -Eq 'not valid JSON|Invalid argument|did not describe' "$T/err" ||
      fail "$name, every $e: a message blames the input for want of memory: $(cat "$T/err")"
    f=$(cat "$T"/report/failalloc.* 2>/dev/null) || fail "$name, every $e: no failalloc report"
    n=$(awk '{print $4}' <<<"$f")
    [ "${n:-0}" -gt 0 ] || fail "$name, every $e: no allocation failed ($f)"
    runs=$((runs + 1)) failed_total=$((failed_total + n))
  done
}

EV="1 2 3 5 8 13 21 34 55 89 144"
sweep transpose transpose "$EV" "$B/clients/transpose" --checksum
# the capture still works when allocations fail now and then (the sweep
# does not only test a shim that gave up at once)
compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "no job captured by any run"
sweep threads threads_client "3 7 19 61" "$B/clients/threads_client" --threads 4 --checksum
py_exe=$(basename "$(readlink -f "$PY")")
sweep pyopencl "$py_exe" "2 7 29" "$PY" "$S/tests/clients/pyopencl_client.py" --size 128 --checksum

# Records that arrive while the program runs (the shim's poller reads the
# bank again): pyopencl launching until told to stop, two records imported
# meanwhile, the second faster than the first.
pyopencl_from_source
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$PY" "$S/tests/clients/pyopencl_client.py" --size 128 \
  --repeat 1 >/dev/null 2>&1
pjob=$(grep -l '"blur' "$AOE_WORK_PATH"/spool/*.job | head -1) || fail "no pyopencl job captured"
"$PY" "$S/tests/fakecl/record_for_job.py" "$pjob" 16 >"$T/p16.json"
"$PY" "$S/tests/fakecl/record_for_job.py" "$pjob" 32 | sed 's/"tuned_us": 1.0/"tuned_us": 0.5/' \
  >"$T/p32.json"
pwant=$("$PY" "$S/tests/clients/pyopencl_client.py" --size 128 --repeat 1 --checksum 2>/dev/null |
  grep -o 'checksum=.*')
midrun=0
for e in 8 34 233; do
  rm -rf "$T/pbank" "$T/stop" "$T"/report/*
  FAILALLOC_EVERY=$e FAILALLOC_EXE=$py_exe AOE_TUNE_MODE=off AOE_POLL_MS=20 \
    TUNE_BANK_PATH=$T/pbank LD_PRELOAD="$FAIL:$HOOK" "$PY" "$S/tests/clients/pyopencl_client.py" \
    --size 128 --repeat 1 --until-file "$T/stop" --pause-ms 5 --checksum >"$T/pout" 2>"$T/perr" &
  pid=$!
  sleep 1
  "$AOE" bank --bank "$T/pbank" import "$T/p16.json" >/dev/null
  sleep 0.5
  "$AOE" bank --bank "$T/pbank" import "$T/p32.json" >/dev/null
  sleep 0.5
  touch "$T/stop"
  rc=0
  wait $pid || rc=$?
  [ $rc = 0 ] || fail "records mid-run, every $e allocations failing: exit status $rc: $(cat "$T/perr")"
  [ "$(grep -o 'checksum=.*' "$T/pout")" = "$pwant" ] || fail "records mid-run, every $e: output differs"
  grep -q ' 1 added' "$T/perr" && midrun=$((midrun + 1))
  n=$(awk '{print $4}' "$T"/report/failalloc.* 2>/dev/null || echo 0)
  [ "${n:-0}" -gt 0 ] || fail "records mid-run, every $e: no allocation failed"
  runs=$((runs + 1)) failed_total=$((failed_total + n))
done

# The hit path: a record for gemm with TS=16 WPT=2 (a variant program built
# in the background, as shim_policy_check's rule_kept).
rm -rf "$AOE_WORK_PATH/spool"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$B/clients/gemm" >/dev/null 2>&1
gjob=$(grep -l gemm_tiled "$AOE_WORK_PATH"/spool/*.job | head -1) || fail "no gemm job captured"
"$PY" "$S/tests/fakecl/record_for_job.py" "$gjob" 16 TS=16 WPT=2 WIDTH=1 |
  "$PY" -c 'import json,sys
d=json.load(sys.stdin); p=d["records"][0]["policy"]
p["global"]=[256,128]; p["local"]=[16,8]; json.dump(d,sys.stdout)' >"$T/grec.json"
"$AOE" bank import "$T/grec.json" >/dev/null
AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$B/clients/gemm" --repeat 3 >/dev/null 2>"$T/err"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "gemm record not applied: $(cat "$T/err")"
AOE_TUNE_MODE=off sweep gemm_hit gemm "$EV" "$B/clients/gemm" --repeat 3 --checksum

if [ -x "$B/clients/gemm_torchlike" ] && [ -e "$B/fakecublas/libcublasLt.so.13" ]; then
  export FAKECUDA_NAME="AOE Fake GPU"
  rm -rf "$AOE_WORK_PATH/spool"
  LD_LIBRARY_PATH=$B/fakecublas:$B/fakecuda \
    sweep cublas gemm_torchlike "1 2 3 7 29 97" "$B/clients/gemm_torchlike"
  # the hit path: a record (algorithm 6, tile 20) for each of its 4 GEMMs
  rm -rf "$AOE_WORK_PATH/spool"
  LD_LIBRARY_PATH=$B/fakecublas:$B/fakecuda LD_PRELOAD="$HOOK" "$B/clients/gemm_torchlike" \
    >/dev/null 2>&1
  for job in "$AOE_WORK_PATH"/spool/*.job; do
    "$PY" "$S/tests/fakecublas/record_for_gemm_job.py" "$job" algo=6 tile=20 >"$T/rec.json"
    "$AOE" bank import "$T/rec.json" >/dev/null
  done
  out=$(AOE_TUNE_MODE=off LD_LIBRARY_PATH=$B/fakecublas:$B/fakecuda LD_PRELOAD="$HOOK" \
    "$B/clients/gemm_torchlike" 2>&1)
  grep -q '4 hit' <<<"$out" || fail "cuBLAS records not applied: $out"
  AOE_TUNE_MODE=off OK_LINES=4 LD_LIBRARY_PATH=$B/fakecublas:$B/fakecuda \
    sweep cublas_hit gemm_torchlike "1 2 3 5 8 13 21 34 55 89" "$B/clients/gemm_torchlike"
  LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc \
    sweep nvrtc cuda_nvrtc_linked "1 3 7 29" "$B/clients/cuda_nvrtc_linked"
  # an NVRTC kernel with a tunables declaration: captured as a job
  LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_TUNABLES=$S/tests/tunables/cuda_tscale.json \
    sweep cuda_kernel cuda_nvrtc_tune_linked "1 3 7 29 61" "$B/clients/cuda_nvrtc_tune_linked"
  cuda="; the cuBLAS and NVRTC hooks too"
else
  cuda="; no CUDA test doubles in this build (configured without CUDA headers)"
fi
echo "shim_oom: $runs runs with $failed_total allocations failed in all: every one exited 0 and" \
  "gave the output of a run without the shim (or its correct results); records picked up" \
  "mid-run in $midrun of 3$cuda"
