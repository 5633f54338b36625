#!/usr/bin/env bash
# Issue 13 item 1: a second runtime is its own files plus one list entry. The
# test build of the shim (libaoe_hook_toy.so: the same sources, the registry
# extended by AOE_EXTRA_RUNTIMES with tests/toyrt's "toy" runtime) hands out
# the toy wrapper for toyLaunch called directly, through dlsym(RTLD_DEFAULT),
# dlsym(RTLD_NEXT), a dlopen'ed handle, libtoyrt's own toyRun (the call site
# skips libtoyrt's frame) and an RTLD_LOCAL dlopen found by the descriptor's
# soname; the poller, fork and exit reach the toy runtime; cl* names still get
# the OpenCL wrappers; other names get glibc's answer unchanged. The
# production shim does not know the toy runtime.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
toy="$B/toyrt"
TOYHOOK="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$toy/libaoe_hook_toy.so"
for f in libaoe_hook_toy.so libtoyrt.so.1 toy_client toy_client_linked; do
  [ -e "$toy/$f" ] || fail "missing $toy/$f (build the tests)"
done
fakecl="$B/fakecl/libOpenCL.so.1"
[ -e "$fakecl" ] || fail "missing $fakecl"
run() { # tag preload program args...; stdout to $T/out.<tag>, stderr to $T/err.<tag>
  local tag=$1 pre=$2 rc=0
  shift 2
  LD_PRELOAD="$pre" "$@" >"$T/out.$tag" 2>"$T/err.$tag" || rc=$?
  [ "$rc" = 0 ] || fail "$tag run exited $rc: $(cat "$T/out.$tag" "$T/err.$tag")"
}
expect() { # tag line: the line must be in out.<tag>
  grep -qxF "$2" "$T/out.$1" || fail "$1: no line '$2' in: $(cat "$T/out.$1")"
}
same() { # tag-a tag-b: their "same ..." lines are equal
  diff <(grep '^same ' "$T/out.$1") <(grep '^same ' "$T/out.$2") >"$T/diff" ||
    fail "lookups differ ($1 <, $2 >): $(cat "$T/diff")"
  grep -q '^same ' "$T/out.$1" || fail "no lookups in $1"
}

run ref "${AOE_TEST_PRELOAD:-}" "$toy/toy_client_linked"
run toy "$TOYHOOK" "$toy/toy_client_linked"
run prod "$HOOK" "$toy/toy_client_linked"
for how in direct default next handle; do
  expect ref "$how toyLaunch 42"
  expect prod "$how toyLaunch 42"
  expect toy "$how toyLaunch 1042"
done
expect ref "library toyRun 10"
expect toy "library toyRun 1010"
expect toy "site toy_client_linked:client_via_library"
expect toy "launches 5 builds yes forks 0"
expect toy "child forks 1 launches 0 toyLaunch 1002"
expect toy "parent forks 0"
expect ref "child forks 0 launches 0 toyLaunch 2"
same ref toy
same ref prod
grep -q '^aoe: toy runtime: counts flushed (5 launches)$' "$T/err.toy" ||
  fail "exit did not flush the toy runtime: $(cat "$T/err.toy")"
grep -q 'toy runtime' "$T/err.prod" && fail "the production shim knows the toy runtime"

run lref "${AOE_TEST_PRELOAD:-}" "$toy/toy_client" "$toy/libtoyrt.so.1" "$fakecl"
run ltoy "$TOYHOOK" "$toy/toy_client" "$toy/libtoyrt.so.1" "$fakecl"
expect lref "local toyLaunch 42"
expect ltoy "local toyLaunch 1042"
grep -q '^cl handle clEnqueueNDRangeKernel -> libOpenCL.so.1+' "$T/out.lref" ||
  fail "reference: $(cat "$T/out.lref")"
grep -q '^cl handle clEnqueueNDRangeKernel -> libaoe_hook_toy.so+' "$T/out.ltoy" ||
  fail "OpenCL name not the OpenCL wrapper: $(cat "$T/out.ltoy")"
same lref ltoy
for tag in toy prod ltoy; do
  grep -v -e '^aoe: ' -e '^fakecl: ' "$T/err.$tag" | grep -q . && fail "unexpected stderr ($tag): $(cat "$T/err.$tag")"
done
echo "shim_runtime_registry: ok ($(grep -c '^same ' "$T/out.toy") + $(grep -c '^same ' "$T/out.ltoy") lookups equal)"
