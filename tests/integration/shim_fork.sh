#!/usr/bin/env bash
# (g) Fork: a program that forks after creating its context and whose child
# only runs a helper program, and one whose forked worker is the first to use
# OpenCL. Both give the output of a run without the shim; the helper child
# leaves no trace (no message, no result file); the worker's launches are
# captured, tuned, and launched tuned in the next run.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/fork_client"
ref_exec=$("$client" --mode exec)
ref_worker=$("$client" --mode worker)
out=$(LD_PRELOAD="$HOOK" "$client" --mode exec 2>"$T/err")
[ "$out" = "$ref_exec" ] || fail "exec mode differs: $out vs $ref_exec"
n=$(ls "$AOE_WORK_PATH"/aoe_result_opat_*.json | wc -l)
[ "$n" = 1 ] || fail "expected one result file (the parent's), found $n"
grep -v '^aoe: ' "$T/err" | grep -q . && fail "unexpected stderr: $(cat "$T/err")"
wait_drained "$AOE_WORK_PATH/spool"
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
out=$(LD_PRELOAD="$HOOK" FORK_CLIENT_REPEAT=2 "$client" --mode exec 2>"$T/err")
[ "$out" = "$("$client" --mode exec)" ] || fail "tuned exec mode differs: $out"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "parent not tuned: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 4 ] ||
  fail "parent launches not all tuned: $(cat "$r")"
# The worker: first OpenCL use in a forked child. Same kernel, so the bank
# already knows it: the worker must find it with its own bank handle.
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
out=$(LD_PRELOAD="$HOOK" "$client" --mode worker 2>"$T/err")
[ "$out" = "$ref_worker" ] || fail "worker mode differs: $out vs $ref_worker"
r=$(latest_result)
[ -n "$r" ] || fail "the worker wrote no result file"
pid=$(json "$r" 'r["basic"]["pid"]')
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "worker not tuned: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 1 ] || fail "worker launch: $(cat "$r")"
# A worker with a fresh bank captures its own job.
export TUNE_BANK_PATH="$T/bank2" AOE_WORK_PATH="$T/work2"
mkdir -p "$AOE_WORK_PATH"
out=$(LD_PRELOAD="$HOOK" "$client" --mode worker 2>"$T/err")
[ "$out" = "$ref_worker" ] || fail "fresh worker differs: $out"
wait_drained "$AOE_WORK_PATH/spool"
"$AOE" bank list | grep -q fork_tr || fail "worker's job not tuned: $(cat "$AOE_WORK_PATH/spool/tuner.log")"
echo "shim_fork: ok (worker pid $pid)"
