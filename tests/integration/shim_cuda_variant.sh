#!/usr/bin/env bash
# Issue 15: variants of a tuned NVRTC kernel (hooks/cuda_variant.c), asked for
# as the launch path asks (the probe shim, tests/fakecuda/variant_probe.c), on
# the fake NVRTC and driver: vadd (c = a + b*SCALE, SCALE an #ifndef default)
# rebuilt with -DSCALE=3 gives a + 3b while the program's own function still
# gives a + b; the variant is loaded into the kernel's context by the poller
# thread (the asking thread's current context is another one); -DSCALE=7 hits
# an #error: failed with one message naming the kernel and the log's first
# line, NULL on every later ask; a -D the program passes itself and a non -D
# option are refused; a program loaded as PTX gets a PTX variant; at most 16
# variants per kernel (said once), asking past it allocates nothing. The shim's
# own compiles are not tracked as the program's. Then: an exit while variants
# are queued, and a child forked after asking builds its own.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_variant_linked
if [ ! -x "$client" ] || [ ! -e "$B/fakecuda/libaoe_hook_cudaprobe.so" ]; then
  echo "shim_cuda_variant: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
PROBE="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$B/fakecuda/libaoe_hook_cudaprobe.so"
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_LOG_LEVEL=debug AOE_TUNE_MODE=offline

rc=0
LD_PRELOAD="$PROBE" "$client" basic >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 0 ] || fail "basic: exit status $rc: $(cat "$T/out") $(grep -v 'nvrtc program\|CUDA module' "$T/err" | tail -5)"
exp="variant -DSCALE=3: c = a + 3b, built into the kernel's context by another thread; the program's own function still c = a + b
variant -DSCALE=7 (#error): failed, NULL on every ask
program with -DSCALE=2: -DSCALE=3 refused (also after --define-macro=SCALE=2), -DOTHER=5 built keeping SCALE=2, a non -D option refused
program loaded as PTX: its variant -DSCALE=4 built from PTX, c = a + 4b
bound: 16 variants of a kernel, the 17th not built"
[ "$(cat "$T/out")" = "$exp" ] || fail "basic: got '$(cat "$T/out")'"
count() { grep -c -- "$1" "$T/err" || true; }
[ "$(count 'variant with -DSCALE=7 did not compile: vadd.cu(5): catastrophic error: #error directive: SCALE 7 is not supported; its own code runs')" = 1 ] ||
  fail "the #error variant was not said once: $(grep 'SCALE=7' "$T/err")"
[ "$(count 'variant with -DSCALE=3 is refused: the program.s own options set one of its macros')" = 2 ] ||
  fail "the overrides were not said once each: $(grep refused "$T/err")"
[ "$(count 'is refused: the policy.s defines are not -DNAME=VALUE options')" = 1 ] || fail "the non -D option: $(grep refused "$T/err")"
[ "$(count 'more than 16 variants asked for')" = 1 ] || fail "the bound was not said once"
[ "$(count 'CUDA kernel vadd: the variant with .* is built')" = 17 ] || fail "$(count 'is built') variants built, want 17"
[ "$(count '^aoe: nvrtc program .* compiled with')" = 4 ] ||
  fail "the shim's own compiles were tracked: $(grep 'compiled with' "$T/err")"
echo "shim_cuda_variant: -DSCALE=3 built into the kernel's context by the poller, c = a + 3b (own function a + b); #error failed once; overrides refused; 16 per kernel"

# Past the bound, asking again (every launch of that shape does) allocates
# nothing: it used to allocate three blocks an ask. The shim's allocations,
# counted by the allocator that fails on purpose (never failing here), with
# 1 and with 2001 asks past the bound.
if [ -e "$B/tests/libaoe_failalloc.so" ]; then
  allocs() { # allocs ASKS: the shim's allocations in one basic run
    rm -rf "$T/report" && mkdir "$T/report"
    LD_PRELOAD="$B/tests/libaoe_failalloc.so:$PROBE" FAILALLOC_OBJECTS=libaoe_hook_cudaprobe.so \
      FAILALLOC_AFTER=2000000000 FAILALLOC_REPORT="$T/report" VARIANT_PAST_BOUND_ASKS=$1 \
      "$client" basic >/dev/null 2>"$T/err" || fail "basic with $1 asks past the bound: $(tail -3 "$T/err")"
    cat "$T"/report/failalloc.* | awk '{s += $2} END {print s}'
  }
  one=$(allocs 1) many=$(allocs 2001)
  [ $((many - one)) -lt 500 ] ||
    fail "2000 more asks past the bound allocated $((many - one)) more times ($one, $many)"
  echo "shim_cuda_variant: asking past the bound allocates nothing ($one and $many allocations)"
else
  echo "shim_cuda_variant: the allocation count needs the allocator that fails on purpose (not in a sanitizer build)"
fi

rc=0
out=$(LD_PRELOAD="$PROBE" "$client" exit 2>"$T/err") || rc=$?
[ $rc = 0 ] && [ "$out" = "exit: 12 variants asked for, exiting" ] || fail "exit: status $rc, $out $(tail -5 "$T/err")"
echo "shim_cuda_variant: an exit with 12 variants queued ends cleanly"

# A variant built while the asking thread captures a stream in global mode:
# the poller's module load runs in relaxed capture mode. It used to fail as a
# forbidden call and break the program's capture (the fake driver models the
# rule).
rc=0
out=$(LD_PRELOAD="$PROBE" "$client" capture 2>"$T/err") || rc=$?
[ $rc = 0 ] && [ "$out" = "capture: a variant built during a global-mode capture, the capture intact" ] ||
  fail "capture: status $rc, $out $(grep -v 'nvrtc program\|CUDA module' "$T/err" | tail -5)"
echo "shim_cuda_variant: a variant built during a global-mode capture leaves the capture intact"

# Not under ASan (asan/run.sh): its allocator can stay locked in a child
# forked while the poller thread builds.
if [ -n "${AOE_TEST_PRELOAD:-}" ]; then
  echo "shim_cuda_variant: the fork check does not run under a preloaded sanitizer (its allocator's own fork limits)"
else
  rc=0
  out=$(LD_PRELOAD="$PROBE" "$client" fork 2>"$T/err") || rc=$?
  [ $rc = 0 ] && [ "$out" = "fork: the child built a variant of its own, the parent its pending one" ] ||
    fail "fork: status $rc, $out $(tail -5 "$T/err")"
  echo "shim_cuda_variant: a child forked after asking builds a variant of its own"
fi
