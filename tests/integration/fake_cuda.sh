#!/usr/bin/env bash
# The fake CUDA driver (tests/fakecuda): exports only names the toolkit's
# driver stub exports (the _v2 forms cuda.h maps to); one device described by
# FAKECUDA_*; calls before cuInit and without a context fail as the driver's
# do; host memory as 256-aligned device memory with range checks and an
# out-of-memory limit; events stamp the simulated clock.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
if [ ! -e "$B/fakecuda/libcuda.so.1" ]; then
  echo "fake_cuda: skipped: no $B/fakecuda/libcuda.so.1 (configured without CUDA headers)"
  exit 77
fi
fail() { echo "fake_cuda: $*" >&2; exit 1; }
unset FAKECUDA_NAME FAKECUDA_SMS FAKECUDA_CC FAKECUDA_DRIVER FAKECUDA_MEM_BYTES FAKECUDA_DEVICES

readelf -d "$B/fakecuda/libcuda.so.1" | grep -q 'SONAME.*\[libcuda.so.1\]' || fail "soname"
inc=$(sed -n 's/^AOE_CUDA_INCLUDE_DIR:[A-Z]*=//p' "$B/CMakeCache.txt")
stub=$inc/../lib64/stubs/libcuda.so
[ -e "$stub" ] || fail "no driver stub at $stub to compare the exported names with"
ours=$(nm -D --defined-only "$B/fakecuda/libcuda.so.1" | awk '$3 ~ /^cu/ {print $3}' | sort)
theirs=$(nm -D --defined-only "$stub" | awk '{print $3}' | sort)
extra=$(comm -23 <(echo "$ours") <(echo "$theirs"))
[ -z "$extra" ] || fail "exported names the driver does not have: $extra"
for n in cuMemAlloc_v2 cuMemFree_v2 cuEventDestroy_v2 cuEventElapsedTime_v2 cuCtxCreate_v4; do
  grep -qx "$n" <<<"$ours" || fail "$n not exported"
done
for n in cuMemAlloc cuMemFree cuEventDestroy; do
  ! grep -qx "$n" <<<"$ours" || fail "legacy $n exported (another ABI)"
done
echo "fake_cuda: $(wc -l <<<"$ours") exported names, all the driver's own (the _v2 forms of cuda.h)"

out=$(LD_LIBRARY_PATH=$B/fakecuda "$B/fakecuda/cuda_probe" 2000)
exp="before cuInit: CUDA_ERROR_NOT_INITIALIZED
cuInit: CUDA_SUCCESS
device 0 of 1: NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0, driver 13000, L2 52428800
alloc without a context: CUDA_ERROR_INVALID_CONTEXT
alloc 1000: CUDA_SUCCESS, 256-aligned 1
round trip 1, set 1
copy past the end: CUDA_ERROR_INVALID_VALUE
used 1000 of 85899345920
alloc 2000: CUDA_SUCCESS
free: CUDA_SUCCESS, again: CUDA_ERROR_INVALID_VALUE
elapsed before record: CUDA_ERROR_INVALID_HANDLE
elapsed 0.250 ms"
[ "$out" = "$exp" ] || fail "defaults: $(diff <(echo "$exp") <(echo "$out"))"
echo "fake_cuda: an H100 by default; memory, ranges, errors and events as the driver's"

out=$(LD_LIBRARY_PATH=$B/fakecuda FAKECUDA_NAME="NVIDIA A100-SXM4-40GB" FAKECUDA_SMS=108 FAKECUDA_CC=8.0 \
  FAKECUDA_DRIVER=12040 FAKECUDA_MEM_BYTES=4096 "$B/fakecuda/cuda_probe" 4000)
grep -q '^device 0 of 1: NVIDIA A100-SXM4-40GB, 108 SMs, cc 8.0, driver 12040,' <<<"$out" || fail "env device: $out"
grep -q '^used 1000 of 4096$' <<<"$out" || fail "env memory: $out"
grep -q '^alloc 4000: CUDA_ERROR_OUT_OF_MEMORY$' <<<"$out" || fail "out of memory: $out"
out=$(LD_LIBRARY_PATH=$B/fakecuda FAKECUDA_DEVICES=0 "$B/fakecuda/cuda_probe")
grep -q '^cuInit: CUDA_ERROR_NO_DEVICE$' <<<"$out" || fail "no device: $out"
out=$(LD_LIBRARY_PATH=$B/fakecuda FAKECUDA_SMS=lots "$B/fakecuda/cuda_probe" 2>&1)
grep -q '^fakecuda: FAKECUDA_SMS=lots is not an integer in 1..100000; using 132$' <<<"$out" || fail "bad env: $out"
echo "fake_cuda: FAKECUDA_* describe the device; out of memory beyond FAKECUDA_MEM_BYTES; a bad value: one message"
