#!/usr/bin/env bash
# The CUDA driver hooks (hooks/cuda*) on the fake driver (tests/fakecuda),
# reached the three ways programs reach it: through cuGetProcAddress_v2 as
# the CUDA runtime does (tests/clients/cuda/driver/cuda_cudart_like.c), and
# by plain binding with -lcuda (cuda_driver_linked.c). Each client's output is
# identical with and without the shim (results, every cuGetProcAddress
# status and symbolStatus, which launch variant the driver ran); the shim's
# wrappers are handed out exactly for the entry points it wraps (legacy and
# per-thread alike), everything else is the driver's own pointer; every
# kernel is listed in the result file with its launches, call site and
# reason (precompiled, graph capture), and by `aoe run`. A fatbin's body is
# never read (the CUDA runtime loads every fatbin of a program through the
# driver), and launches of a NULL function take no function record. A module
# destroyed with its context and a new one handed its handle values: the new
# one's kernels are its own.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
if [ ! -e "$B/fakecuda/libcuda.so.1" ] || [ ! -e "$B/clients/cuda_cudart_like" ]; then
  # ctest counts 77 as skipped only in a build without the CUDA headers
  # (tests/CMakeLists.txt); with them a missing fake is a failure.
  echo "shim_cuda: skipped: no fake driver or clients in $B (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda AOE_TUNE_MODE=offline
has() { grep -q -- "$1" <<<"$2" || fail "no '$1' in: $2"; }
nt() { # the result file's not_tuned entries, sorted
  json "$(latest_result)" "sorted((e['op_name'], e['reason'], e['launches'], e['detail']) for e in r['OPAT']['not_tuned'])"
}

# --- the CUDA runtime's way: cuGetProcAddress_v2 from dlsym, then everything through it
client=$B/clients/cuda_cudart_like
base=$("$client") || fail "client failed without the shim: $base"
base_cudart=$base
out=$(LD_PRELOAD="$HOOK" "$client") || fail "client failed under the shim: $out"
diff <(grep -v '^owner ' <<<"$base") <(grep -v '^owner ' <<<"$out") ||
  fail "output differs under the shim"
# the answers themselves (the fake's cuGetProcAddress semantics, passed through)
has 'lookup  v0 f0: rc 0 status 1 null' "$out"                     # the empty-symbol probe
has 'lookup cuNoSuchFunction v12000 f0: rc 0 status 1 null' "$out" # SYMBOL_NOT_FOUND
has 'lookup cuFuncGetName v12000 f0: rc 0 status 2 null' "$out"    # VERSION_NOT_SUFFICIENT
has 'lookup cuLaunchKernel v99000 f0: rc 1 status 99 null' "$out"  # beyond the driver: untouched
has 'gpa4 cuLaunchKernel: rc 0 found' "$out"                       # the 4-argument ABI works
has 'per-thread launch ran cuLaunchKernel_ptsz' "$out"
has 'per-thread Ex launch ran cuLaunchKernelEx_ptsz' "$out"
has 'legacy launch ran cuLaunchKernel$' "$out"
has 'cuMemAlloc same as dlsym: yes' "$out"
has 'fatbin loaded without its body read' "$out" # the shim used to hash every fatbin whole
# who answered: the shim for what it wraps, the driver for the rest
for what in 'dlsym cuGetProcAddress_v2' 'cuGetProcAddress@11030' 'cuGetProcAddress@12000' \
  'cuLaunchKernel' 'cuLaunchKernel per-thread' 'cuLaunchKernelEx per-thread'; do
  has "owner $what: libaoe_hook.so" "$out"
  has "owner $what: libcuda.so.1" "$base"
done
has 'owner cuMemAlloc: libcuda.so.1' "$out"
got=$(nt)
want="[('fill', 'precompiled', 4, 'cuda_cudart_like:main')]"
[ "$got" = "$want" ] || fail "cudart-like kernels: $got, want $want"

# --- a driver handing out an address that is none of its exported entry
# points (FAKECUDA_PRIVATE_LAUNCH): passed through untouched, said once; its
# launches are not observed (the per-thread one still is)
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
out=$(LD_PRELOAD="$HOOK" FAKECUDA_PRIVATE_LAUNCH=1 "$client" 2>"$T/err") ||
  fail "client failed with a private cuLaunchKernel: $out"
diff <(grep -v '^owner ' <<<"$base") <(grep -v '^owner ' <<<"$out") ||
  fail "output differs with a private cuLaunchKernel"
has 'owner cuLaunchKernel: libcuda.so.1' "$out"
has 'owner cuLaunchKernel per-thread: libaoe_hook.so' "$out"
has 'cuGetProcAddress(cuLaunchKernel, 4000, flags 0) returned an address that is not one of the driver' "$(cat "$T/err")"
got=$(nt)
want="[('fill', 'precompiled', 3, 'cuda_cudart_like:main')]"
[ "$got" = "$want" ] || fail "kernels with a private cuLaunchKernel: $got, want $want"

# --- plain binding (-lcuda): modules, libraries, kernels, every launch form, a graph capture
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
client=$B/clients/cuda_driver_linked
base=$("$client") || fail "linked client failed without the shim: $base"
out=$(LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug "$client" 2>"$T/err") ||
  fail "linked client failed under the shim: $out"
[ "$base" = "$out" ] || fail "linked output differs: $out vs $base"
has 'captured: 1 node(s), buffer still 7' "$out"
got=$(nt)
want="[('fill', 'graph_capture', 1, 'cuda_driver_linked:main'), ('fill', 'precompiled', 3, 'cuda_driver_linked:main'), ('vadd', 'precompiled', 5, 'cuda_driver_linked:main')]"
[ "$got" = "$want" ] || fail "linked kernels: $got, want $want"
err=$(cat "$T/err")
has 'CUDA kernel vadd: first launch through cuLaunchKernel from cuda_driver_linked:main, grid 4x1x1, block 64x1x1, 0 shared bytes' "$err"
has 'through cuLaunchKernelEx .* 128 shared bytes' "$err"
has 'capturing into a graph' "$err"
# each module's image measured and hashed (64-bit FNV-1a of the clients' fake image)
img='AOEFAKECUBIN 1\narch sm_90\ndefine SCALE 2\nkernel vadd\nkernel fill\nhash 00000000000000aa\n'
hash=$("$PY" -c 'import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode().decode("unicode_escape").encode():
    h = ((h ^ b) * 0x100000001b3) % 2**64
print("%016x" % h)' "$img")
[ "$(grep -c "CUDA module .*: kind 3, 87 bytes, hash $hash" <<<"$err")" = 3 ] ||
  fail "three modules hashed $hash expected: $err"
has 'device cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90' "$err"

# --- a context destroyed with its module loaded (no cuModuleUnload), twice;
# the fake driver hands the second load the first's module and function
# handle values, as a real one may. The second module's vadd is a kernel of
# its own (first sight, its own image); the shim used to keep the first
# module's record for it (its program, its variants built in a destroyed
# context).
base=$("$client" ctx-reload) || fail "ctx-reload failed without the shim: $base"
has 'round 1: vadd c\[1\] = 4, the module and function handles of round 0 again' "$base"
out=$(LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug "$client" ctx-reload 2>"$T/err") ||
  fail "ctx-reload failed under the shim: $out"
[ "$base" = "$out" ] || fail "ctx-reload output differs: $out vs $base"
firsts=$(grep -o 'CUDA kernel vadd: first launch .* module [0-9a-f]*' "$T/err" | grep -o '[0-9a-f]*$' | sort -u | wc -l)
[ "$firsts" = 2 ] || fail "ctx-reload: the second module's vadd not seen as its own: $(grep 'vadd\|module' "$T/err")"

# --- aoe run lists them (the client starts a little later: aoe run reads the
# result files whose mtime is past its start, and a file system's coarse
# clock can stamp a file written within a few ms of it earlier)
# (LD_PRELOAD: aoe run appends the shim; tests/integration/asan/run.sh)
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- bash -c 'sleep 0.05; exec "$0"' "$client" 2>&1) ||
  fail "aoe run failed: $out"
has 'not tuned (precompiled kernel (no NVRTC source)): fill, vadd' "$out"
has 'not tuned (launched into a CUDA graph capture): fill' "$out"

# --- a shim that is off (bad configuration) passes everything through
out=$(LD_PRELOAD="$HOOK" AOE_TUNE_MODE=bogus "$B/clients/cuda_cudart_like" 2>/dev/null) ||
  fail "client failed with the shim off"
diff <(grep -v '^owner ' <<<"$base_cudart") <(grep -v '^owner ' <<<"$out") ||
  fail "output differs with the shim off"
echo "shim_cuda: ok"
