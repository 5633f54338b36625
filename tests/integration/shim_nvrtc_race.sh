#!/usr/bin/env bash
# Many threads compile NVRTC programs at once under the shim (PyTorch
# compiles from several): every program compiles as without the shim, every
# output is found by the lookup under its own program's name, and each
# compilation is said once at debug level. Past the tracker's bound (16384
# programs) the oldest are forgotten, said once, and the newest still
# found; a program held by a lookup stays valid until released; a child
# forked while threads compile tracks its own programs. Run from a ThreadSanitizer build (scripts/test: build-tsan) it also
# fails on any report of TSan; on the real NVRTC too where the toolkit has it.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
F=$B/fakenvrtc
if [ ! -e "$F/libnvrtc.so.13" ]; then
  echo "shim_nvrtc_race: skipped: no $F/libnvrtc.so.13 (configured without CUDA headers)"
  exit 77
fi
PROBE="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$F/libaoe_hook_nvrtcprobe.so"
inc=$(sed -n 's/^AOE_CUDA_INCLUDE_DIR:[A-Z]*=//p' "$B/CMakeCache.txt")
REAL=$(cd "$inc/../lib64" 2>/dev/null && pwd)
export AOE_TUNE_MODE=offline TSAN_OPTIONS="halt_on_error=1 exitcode=66"

# check LIBDIR THREADS PROGRAMS FIRST: runs the client, checks its counts and the debug lines
check() {
  local lib=$1 threads=$2 programs=$3 first=$4 rc=0
  local n=$((threads * programs))
  LD_LIBRARY_PATH=$lib LD_PRELOAD="$PROBE" AOE_LOG_LEVEL=debug "$F/nvrtc_dlopen" --threads "$threads" \
    --programs "$programs" >"$T/out" 2>"$T/err" || rc=$?
  ! grep -q ThreadSanitizer "$T/err" || fail "ThreadSanitizer: $(grep -A30 ThreadSanitizer "$T/err" | head -60)"
  [ $rc = 0 ] || fail "client exit status $rc: $(cat "$T/out") $(tail -5 "$T/err")"
  exp="threads=$threads programs=$programs ok=$n wrong=0 tracked=$n first=$first
held=p0.cu"
  [ "$(cat "$T/out")" = "$exp" ] || fail "expected '$exp', got '$(cat "$T/out")'"
  c=$(grep -c '^aoe: nvrtc program p[0-9]*\.cu compiled with -arch=sm_90 -DTHREAD=[0-9]*: NVRTC_SUCCESS' "$T/err" || true)
  [ "$c" = "$n" ] || fail "$c compilations said, $n made"
}

check "$F" 8 50 tracked
echo "shim_nvrtc_race: 400 programs from 8 threads at once, all compiled, all found by the lookup"
check "$F" 4 4200 untracked
[ "$(grep -c 'the oldest are no longer tracked' "$T/err")" = 1 ] || fail "the bound was not said once: $(grep -v 'nvrtc program' "$T/err" | head)"
echo "shim_nvrtc_race: past 16384 programs the oldest are forgotten (said once), the newest still found; one held by a lookup stays valid until released"
# Children forked while 4 threads compile (the tracker's lock may be held at
# the fork) compile and find a program of their own. Not under ASan
# (asan/run.sh): its allocator can stay locked in such a child.
# Nor in a ThreadSanitizer build: its allocator's size-class lock, held by a
# compiling thread at the fork, stays locked in the child (seen as a child
# hung in __sanitizer::SizeClassAllocator64::GetFromAllocator under calloc,
# 1 run in 3); the normal build runs the check.
if [ -n "${AOE_TEST_PRELOAD:-}" ]; then
  echo "shim_nvrtc_race: the fork check does not run under a preloaded sanitizer (its allocator's own fork limits)"
elif ldd "$F/libaoe_hook_nvrtcprobe.so" 2>/dev/null | grep -q libtsan; then
  echo "shim_nvrtc_race: the fork check does not run in a ThreadSanitizer build (its allocator's own fork limits); the normal build runs it"
else
  out=$(LD_LIBRARY_PATH=$F LD_PRELOAD="$PROBE" "$F/nvrtc_dlopen" --forks 30 2>"$T/err") || fail "forks: $out $(tail -5 "$T/err")"
  [ "$out" = "forks=30 ok=30" ] || fail "forks: $out"
  ! grep -q ThreadSanitizer "$T/err" || fail "ThreadSanitizer: $(grep -A30 ThreadSanitizer "$T/err" | head -60)"
  echo "shim_nvrtc_race: 30 children forked while threads compile: each compiles and finds its own program"
fi
if [ -e "$REAL/libnvrtc.so.13" ]; then
  check "$REAL" 4 5 tracked
  echo "shim_nvrtc_race: the real NVRTC: 20 programs from 4 threads, all found"
fi
