#!/usr/bin/env bash
# Program-visible behaviour is unchanged by the shim: return codes, error
# codes of invalid calls (invalid kernel, bad work sizes, unset arguments,
# bad argument index or size), events (wait, status, type, queue, profiling
# order) and the output, on a first run (capture) and on a tuned run.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/behaviour_client"
"$client" >"$T/ref" || fail "client fails without the shim"
LD_PRELOAD="$HOOK" "$client" >"$T/run1" 2>"$T/err1" || fail "client fails under the shim: $(cat "$T/err1")"
diff "$T/ref" "$T/run1" || fail "first run differs (above)"
wait_drained "$AOE_WORK_PATH/spool"
LD_PRELOAD="$HOOK" "$client" >"$T/run2" 2>"$T/err2" || fail "client fails on the tuned run"
diff "$T/ref" "$T/run2" || fail "tuned run differs (above)"
"$AOE" bank list | grep -q scale && { grep -q '"hit":	1' "$(latest_result)" || fail "bank has the kernel but no hit: $(cat "$(latest_result)")"; }
echo "shim_behaviour: ok ($(wc -l <"$T/ref") checks)"
