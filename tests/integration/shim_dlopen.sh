#!/usr/bin/env bash
# (c) A program that dlopens libOpenCL with RTLD_LOCAL and dlsyms every
# function: built here without libOpenCL in its dependencies (so the runtime
# is only in a local scope, where dlsym(RTLD_NEXT) cannot see it). Under the
# shim it gets the shim's wrappers, its operator is captured and tuned, and a
# second run launches the tuned policy with bit-identical output. A program
# that dlcloses the runtime and opens it again (a plugin host) gets the
# wrappers every time: the shim pins the library it took entry points from
# (it used to lose every call after the first dlclose, and its cached entry
# points and background variant builds pointed at unmapped code).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$T/dlopen_client"
cc -O1 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -o "$client" \
  "$S/tests/clients/dlopen_client.c" -ldl || fail "cannot build the client"
readelf -d "$client" | grep -q 'libOpenCL' && fail "client links libOpenCL"
ref=$(checksum_of "$("$client" --checksum)")
[ -n "$ref" ] || fail "no checksum without the shim"
which=$(LD_PRELOAD="$HOOK" "$client" --which 2>&1)
grep -q '^clEnqueueNDRangeKernel libaoe_hook.so$' <<<"$which" || fail "no wrapper handed out: $which"
grep -q '^clFinish libOpenCL.so.1$' <<<"$which" || fail "unwrapped function not the runtime's: $which"
out1=$(LD_PRELOAD="$HOOK" "$client" --checksum 2>&1)
[ "$(checksum_of "$out1")" = "$ref" ] || fail "first run differs: $out1"
wait_drained "$AOE_WORK_PATH/spool"
"$AOE" bank list | grep -q ' tr ' || fail "no record: $(cat "$AOE_WORK_PATH"/spool/*.txt "$AOE_WORK_PATH/spool/tuner.log" 2>&1)"
out2=$(LD_PRELOAD="$HOOK" "$client" --checksum --repeat 2 2>&1)
[ "$(checksum_of "$out2")" = "$ref" ] || fail "tuned run differs: $out2"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "no hit: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 2 ] || fail "not tuned: $(cat "$r")"
# three rounds, each from dlopen to dlclose, with the bank's record: every
# round gets the wrappers, launches the tuned policy, and gives the same output
which=$(LD_PRELOAD="$HOOK" "$client" --which --rounds 3 2>&1)
[ "$(grep -c '^clEnqueueNDRangeKernel libaoe_hook.so$' <<<"$which")" = 3 ] ||
  fail "a reloaded runtime's calls bypass the shim: $(grep clEnqueueNDRange <<<"$which")"
out3=$(LD_PRELOAD="$HOOK" "$client" --checksum --rounds 3 2>&1)
[ "$(grep -c "^$ref$" <<<"$out3")" = 3 ] || fail "reloaded rounds differ: $out3"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 3 ] ||
  fail "not every round tuned: $(cat "$r")"
echo "shim_dlopen: ok (and across three dlopen/dlclose rounds)"
