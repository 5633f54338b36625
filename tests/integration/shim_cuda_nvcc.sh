#!/usr/bin/env bash
# A real nvcc-built program (static CUDA runtime) on the fake driver under
# the shim: the runtime takes cuGetProcAddress_v2 with dlsym and every
# driver function through it; the shim must see those look-ups and hand back
# its wrappers for exactly the variants the driver returned (cuGetProcAddress
# at 11030 and 12000, the launch entry points legacy and per-thread). The
# runtime then stops at its private export tables (the fake has none), so
# no kernel runs: the program's output is the same with and without the shim.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvcc_static
if [ ! -x "$client" ]; then
  # exit 77 counts as skipped for this test in every build (tests/CMakeLists.txt):
  # nvcc is optional even where the CUDA headers are installed
  echo "shim_cuda_nvcc: skipped: no $client (nvcc not found when the build was configured)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda AOE_TUNE_MODE=offline
base=$("$client") || fail "client failed without the shim: $base"
out=$(LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug "$client" 2>"$T/err") || fail "client failed under the shim: $out"
[ "$base" = "$out" ] || fail "output differs under the shim: $out vs $base"
err=$(cat "$T/err")
for want in 'cuGetProcAddress(cuGetProcAddress, 11030, flags 0): the driver'"'"'s cuGetProcAddress,' \
  'cuGetProcAddress(cuGetProcAddress, 12000, flags 0): the driver'"'"'s cuGetProcAddress_v2,' \
  'cuGetProcAddress(cuLaunchKernel, 4000, flags 0): the driver'"'"'s cuLaunchKernel,' \
  'cuGetProcAddress(cuLaunchKernel, 7000, flags 2): the driver'"'"'s cuLaunchKernel_ptsz,' \
  'cuGetProcAddress(cuLaunchKernelEx, 11060, flags 2): the driver'"'"'s cuLaunchKernelEx_ptsz,' \
  'cuGetProcAddress(cuLibraryGetKernel, 12000, flags 0)'; do
  grep -qF -- "$want" <<<"$err" || fail "the shim did not see '$want': $err"
done
echo "shim_cuda_nvcc: ok ($(grep -c 'cuGetProcAddress(' <<<"$err") look-ups wrapped)"
