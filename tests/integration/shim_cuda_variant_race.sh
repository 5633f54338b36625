#!/usr/bin/env bash
# Many threads ask for the same and for different variants of one NVRTC
# kernel at once (hooks/cuda_variant.c through the probe shim, on the fake
# NVRTC and driver): every thread gets each variant and launches it with the
# right result, and each distinct set of values is built exactly once (the
# lock-free add never records one twice). Run from a ThreadSanitizer build
# (scripts/test: build-tsan) it also fails on any report of TSan.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_variant_linked
if [ ! -x "$client" ] || [ ! -e "$B/fakecuda/libaoe_hook_cudaprobe.so" ]; then
  echo "shim_cuda_variant_race: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
PROBE="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$B/fakecuda/libaoe_hook_cudaprobe.so"
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_LOG_LEVEL=debug AOE_TUNE_MODE=offline \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66"
for threads in 8 12; do
  rc=0
  LD_PRELOAD="$PROBE" "$client" race $threads >"$T/out" 2>"$T/err" || rc=$?
  ! grep -q ThreadSanitizer "$T/err" ||
    fail "ThreadSanitizer (rc $rc; client: $(grep -v '^aoe: ' "$T/err" | head -2)): $(grep -A30 ThreadSanitizer "$T/err" | head -60)"
  [ $rc = 0 ] || fail "$threads threads: exit status $rc: $(cat "$T/out") $(tail -5 "$T/err")"
  n=$((4 + threads))
  [ "$(cat "$T/out")" = "race: $threads threads, $n variants, every launch correct" ] || fail "got '$(cat "$T/out")'"
  built=$(grep -c 'CUDA kernel vadd: the variant with .* is built' "$T/err" || true)
  [ "$built" = $n ] || fail "$threads threads: $built builds for $n distinct variants"
  [ "$(grep -c 'is built' "$T/err")" = "$(grep 'is built' "$T/err" | sort -u | wc -l)" ] || fail "a variant built twice"
done
echo "shim_cuda_variant_race: 8 and 12 threads asking at once: each variant built once, every launch correct"
