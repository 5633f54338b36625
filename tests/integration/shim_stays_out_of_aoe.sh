#!/usr/bin/env bash
# A shell that exported LD_PRELOAD=libaoe_hook.so (to run one program under
# AOE, then kept it) runs `aoe tune` with the shim preloaded. The shim must
# stay out of AOE's own process: it used to capture the tuner's reference run
# and variants as jobs of their own, write a result file for the tuner, and
# could apply a bank record to what the tuner measured as the default. The
# programs `aoe run` starts from that shell are still under the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/transpose"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
cp "$job" "$T/job.json"
rm -rf "${AOE_WORK_PATH:?}"/*

LD_PRELOAD="$HOOK" AOE_TUNE_MODE=offline "$AOE" tune --max-evals 4 "$T/job.json" >"$T/out" 2>"$T/err" ||
  fail "aoe tune under the shim failed: $(cat "$T/err")"
grep -q '^transpose .* added' "$T/out" || fail "the job was not tuned: $(cat "$T/out" "$T/err")"
[ -z "$(ls -A "$AOE_WORK_PATH")" ] ||
  fail "the shim acted inside aoe tune: $(ls -R "$AOE_WORK_PATH")"
grep -q '^aoe: [0-9]* operators' "$T/err" && fail "the shim summed up aoe tune's own run: $(cat "$T/err")"

# aoe run from the same environment: the program is under the shim (a hit)
LD_PRELOAD="$HOOK" "$AOE" run -- "$client" >/dev/null 2>"$T/err2" ||
  fail "aoe run under the shim failed: $(cat "$T/err2")"
grep -q '1 hit' "$T/err2" || fail "the program under aoe run was not under the shim: $(cat "$T/err2")"
echo "shim_stays_out_of_aoe: with the shim preloaded, aoe tune tuned the job and the shim" \
  "wrote nothing (no job, no result file); a program started by aoe run still hit the bank"
