#!/usr/bin/env bash
# Threads launching CUDA kernels at once under the shim (the first sight of a
# shared function, module and function inserts, unloads, counters): every
# thread's results correct, one entry per kernel in the result file with at
# most every launch counted (counts of an untuned function's concurrent
# launches may be low, docs/shim.md) and at least one per thread's first
# sight. Run from a ThreadSanitizer build (scripts/test: build-tsan) it also
# fails on any report of TSan.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_race_linked
if [ ! -e "$B/fakecuda/libcuda.so.1" ] || [ ! -x "$client" ]; then
  echo "shim_cuda_race: skipped: no fake driver or $client (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda AOE_TUNE_MODE=offline TSAN_OPTIONS="halt_on_error=1 exitcode=66"
threads=8 launches=500
out=$(LD_PRELOAD="$HOOK" "$client" $threads $launches 2>&1) || fail "client failed: $out"
grep -q "^ok: $threads threads" <<<"$out" || fail "unexpected output: $out"
r=$(latest_result)
[ -n "$r" ] || fail "no result file"
got=$(json "$r" "sorted((e['op_name'], e['reason']) for e in r['OPAT']['not_tuned'])")
[ "$got" = "[('fill', 'precompiled'), ('vadd', 'precompiled')]" ] || fail "kernels: $got"
total=$((threads * launches))
for k in fill vadd; do
  n=$(json "$r" "sum(e['launches'] for e in r['OPAT']['not_tuned'] if e['op_name'] == '$k')")
  [ "$n" -ge "$threads" ] && [ "$n" -le "$total" ] || fail "$k: $n launches counted (of $total)"
done
echo "shim_cuda_race: ok"
