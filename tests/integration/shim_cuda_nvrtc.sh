#!/usr/bin/env bash
# Issue 15: the driver hooks and the NVRTC hooks together, as CuPy's
# RawModule runs: a program compiled with NVRTC, its CUBIN loaded with
# cuModuleLoadData, its kernel launched (cuda_nvrtc_linked, on the fake NVRTC
# and driver). The module is known to come from that NVRTC program (the image
# found by the tracker), so the kernel is listed as "no tunables declaration"
# (tunable once declared), not "precompiled"; output identical without the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_linked
if [ ! -x "$client" ]; then
  echo "shim_cuda_nvrtc: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_LOG_LEVEL=debug
want=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$client") || fail "without the shim: $want"
rc=0
out=$(LD_PRELOAD="$HOOK" "$client" 2>"$T/err") || rc=$?
[ $rc = 0 ] && [ "$out" = "$want" ] || fail "under the shim (rc $rc): $out (want $want) $(cat "$T/err")"
grep -q 'CUDA module .* from NVRTC program vadd.cu' "$T/err" || fail "module not linked to its program: $(cat "$T/err")"
r=$(latest_result)
[ -n "$r" ] || fail "no result file: $(cat "$T/err")"
[ "$(json "$r" '[(o["op_name"], o["reason"], o["launches"]) for o in r["OPAT"]["not_tuned"]]')" = \
  "[('vadd', 'no_tunables_declaration', 2)]" ] || fail "kernel list: $(cat "$r")"
echo "shim_cuda_nvrtc: a kernel of an NVRTC program loaded as a module is listed as such (2 launches), output identical"
