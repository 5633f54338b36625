#!/usr/bin/env bash
# Issue 12, item 14: the background tuner exits when idle; a job the program
# queues after that is still tuned (the shim starts a tuner whenever it queued
# a job and no tuner holds the spool's lock). AOE_TUNER_IDLE_EXIT=1 makes the
# tuner idle out quickly; the client waits until it has really exited.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
spool="$AOE_WORK_PATH/spool"
out=$(AOE_TUNER_IDLE_EXIT=1 AOE_MAX_EVALS=3 LD_PRELOAD="$HOOK" "$PY" \
  "$S/tests/clients/late_job_client.py" "$spool" 2>"$T/err") || fail "client failed: $(cat "$T/err")"
grep -q "tuner gone" <<<"$out" || fail "the first tuner never exited: $out $(cat "$T/err")"
wait_drained "$spool" 60
list=$("$AOE" bank list 2>&1)
grep -q first <<<"$list" || fail "first kernel not tuned: $list"
grep -q second <<<"$list" || fail "the job queued after the tuner exited was not tuned: $list"
echo "tuner_late_job: ok (a job queued after the tuner idled out was tuned)"
