#!/usr/bin/env bash
# CUDA graph replays under the shim (hooks/cuda_graph.c) on the fake driver
# (tests/fakecuda/fcu_graph.c): a client captures two vadd launches on a
# stream into a graph, instantiates it and replays it five times
# (tests/clients/cuda/driver/cuda_graph_linked.c: cuGraphLaunch as linked,
# the per-thread entry point from cuGetProcAddress_v2, cuGraphLaunch_ptsz
# from dlsym on the driver's handle), each output checked. Its output is
# identical with and without the shim; the shim wraps every way to the
# replay entry point; the result file and `aoe run` list the replays as not
# tunable (their count, the call site of the first) and vadd (and fill, of
# a graph the fake refuses to instantiate) with reason graph capture. Then threads replaying at once: every replay counted (a
# slot per thread; run from a ThreadSanitizer build, scripts/test, it also
# fails on any report of TSan).
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_graph_linked
if [ ! -e "$B/fakecuda/libcuda.so.1" ] || [ ! -e "$client" ]; then
  # ctest counts 77 as skipped only in a build without the CUDA headers
  # (tests/CMakeLists.txt); with them a missing fake is a failure.
  echo "shim_cuda_graph: skipped: no fake driver or client in $B (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda AOE_TUNE_MODE=offline TSAN_OPTIONS="halt_on_error=1 exitcode=66"
has() { grep -q -- "$1" <<<"$2" || fail "no '$1' in: $2"; }

base=$("$client") || fail "client failed without the shim: $base"
has 'captured: 2 node(s), ran cuLaunchKernel$' "$base" # captured, not run
has 'replay 4: 400 910 (ran cuGraphLaunch_ptsz)' "$base"
has 'replays: cuGraphLaunch 2, cuGraphLaunch_ptsz 3, wrong outputs 0' "$base"
has 'instantiate fill.s graph: rc 801 result 3' "$base" # NOT_SUPPORTED, NODE_OPERATION_NOT_SUPPORTED
out=$(LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug "$client" 2>"$T/err") ||
  fail "client failed under the shim: $out"
diff <(grep -v '^owner ' <<<"$base") <(grep -v '^owner ' <<<"$out") ||
  fail "output differs under the shim"
for what in 'cuGraphLaunch' 'cuGraphLaunch per-thread' 'dlsym cuGraphLaunch_ptsz'; do
  has "owner $what: libaoe_hook.so" "$out"
  has "owner $what: libcuda.so.1" "$base"
done
has 'cuGetProcAddress(cuGraphLaunch, 12000, flags 2): the driver.s cuGraphLaunch_ptsz, wrapped' "$(cat "$T/err")"
got=$(json "$(latest_result)" "sorted((e['op_name'], e['reason'], e['launches'], e['detail']) for e in r['OPAT']['not_tuned'])")
want="[('CUDA graph replays', 'graph_replay', 5, 'cuda_graph_linked:main'), ('fill', 'graph_capture', 1, 'cuda_graph_linked:main'), ('vadd', 'graph_capture', 2, 'cuda_graph_linked:capture')]"
[ "$got" = "$want" ] || fail "not tuned: $got, want $want"

# --- aoe run lists them (the client starts a little later: aoe run reads the
# result files whose mtime is past its start; LD_PRELOAD: aoe run appends the shim)
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- bash -c 'sleep 0.05; exec "$0"' "$client" 2>&1) ||
  fail "aoe run failed: $out"
has 'not tuned (launched into a CUDA graph capture): fill, vadd$' "$out"
has '^CUDA graph replays  5 launches  graph replay (kernels inside graphs are not tuned)  first from cuda_graph_linked:main$' "$out"
grep -q 'not tuned (graph replay' <<<"$out" && fail "replays listed as a kernel: $out"

# --- threads replaying at once, each its own graph: below 64 threads each
# counts into a slot of its own, so no replay is lost
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
threads=8 replays=500
out=$(LD_PRELOAD="$HOOK" "$client" race $threads $replays 2>"$T/err") || fail "race client failed: $out $(cat "$T/err")"
[ "$out" = "ok: $threads threads, $((threads * replays)) replays" ] || fail "race: $out"
got=$(json "$(latest_result)" "sorted((e['op_name'], e['reason'], e['launches']) for e in r['OPAT']['not_tuned'])")
want="[('CUDA graph replays', 'graph_replay', $((threads * replays))), ('vadd', 'graph_capture', $((threads * 2)))]"
[ "$got" = "$want" ] || fail "race: not tuned: $got, want $want"

# --- a shim that is off (bad configuration) passes the replays through
out=$(LD_PRELOAD="$HOOK" AOE_TUNE_MODE=bogus "$client" 2>/dev/null) || fail "client failed with the shim off"
diff <(grep -v '^owner ' <<<"$base") <(grep -v '^owner ' <<<"$out") ||
  fail "output differs with the shim off"
echo "shim_cuda_graph: ok"
