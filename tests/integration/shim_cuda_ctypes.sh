#!/usr/bin/env bash
# The CUDA driver hooks seen from Python ctypes, as CuPy reaches the driver
# (ctypes.CDLL('libcuda.so.1') + getattr: a dlsym on the library's handle,
# which the shim's dlsym wrapper answers with its wrappers): output identical
# with and without the shim; both kernels listed with their launches.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
if [ ! -e "$B/fakecuda/libcuda.so.1" ] || [ ! -e "$B/fakecuda/libfakecuda_kernels.so" ]; then
  echo "shim_cuda_ctypes: skipped: no fake driver in $B (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda AOE_TUNE_MODE=offline
client=("$PY" "$S/tests/clients/cuda/driver/cuda_ctypes.py" "$B/fakecuda/libfakecuda_kernels.so")
# (a sanitizer run's instrumented fakes need its runtime first: AOE_TEST_PRELOAD)
base=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "${client[@]}") || fail "client failed without the shim: $base"
[ "$base" = "$(printf 'vadd: 0.0 1.5 190.5\nfill: 5 12')" ] || fail "unexpected results: $base"
out=$(LD_PRELOAD="$HOOK" "${client[@]}") || fail "client failed under the shim: $out"
[ "$base" = "$out" ] || fail "output differs under the shim: $out"
got=$(json "$(latest_result)" "sorted((e['op_name'], e['reason'], e['launches']) for e in r['OPAT']['not_tuned'])")
want="[('fill', 'precompiled', 1), ('vadd', 'precompiled', 3)]"
[ "$got" = "$want" ] || fail "kernels: $got, want $want"
echo "shim_cuda_ctypes: ok"
