#!/usr/bin/env bash
# The shim's exit handler runs before every exit handler a runtime registers
# once a variant build has been requested, whether the runtime registered its
# teardown before the request (clang's function-local statics at the
# program's own build under PoCL) or after it; so a build is never started
# or left running beside that teardown, even when the exit begins before the
# poller reaches the build. The toy runtime's build waits until the exit has
# begun (TOY_BUILD_AT_EXIT); its teardown takes 300 ms and a build after it
# aborts. The program's own exit handlers keep their order.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
toy="$B/toyrt"
TOYHOOK="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$toy/libaoe_hook_toy.so"
client="$toy/toy_exit_client"
[ -x "$client" ] || fail "missing $client (build the tests)"
export AOE_LOG_LEVEL=error

for order in prepare-first request-first; do
  rc=0
  out=$(TOY_BUILD_AT_EXIT=1 LD_PRELOAD="$TOYHOOK" timeout 30 "$client" $order 2>"$T/err") || rc=$?
  [ "$rc" = 0 ] || fail "$order: exit status $rc: $out $(cat "$T/err")"
  want=$'toyLaunch 1002\nexiting\nexit handler two\nexit handler one'
  [ "$out" = "$want" ] || fail "$order: output: $out"
  [ ! -s "$T/err" ] || fail "$order: stderr: $(cat "$T/err")"
done

# Without the shim: the same output (the client's handlers, in their order).
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$client" prepare-first)
[ "$out" = $'toyLaunch 2\nexiting\nexit handler two\nexit handler one' ] ||
  fail "without the shim: $out"
echo "shim_exit_order: ok (exit handler first in both orders; the program's handlers in order)"
