#!/usr/bin/env bash
# Issue 12, item 19: `aoe tune` on a bank it cannot write refuses at once,
# with one message and exit status 1, instead of spending the whole tuning
# budget and only then failing to save; --dry-run (which saves nothing) runs.
# The bank is root's and readable by all; the tuner runs as a second user.
set -euo pipefail
. "$(dirname "$0")/second_user.bash"
. "$(dirname "$0")/shim_helpers.bash"
need_second_user
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$B/clients/transpose" >/dev/null 2>&1
job=$(ls "$AOE_WORK_PATH"/spool/*.job)
cp "$job" "$T/job.json"
chmod 644 "$T/job.json"
printf '{"format":"aoe-bank","version":1,"records":[]}' >"$T/empty.json"
"$AOE" bank import "$T/empty.json" --bank "$T/robank" >/dev/null
chmod 755 "$T/robank" && chmod 644 "$T/robank"/*.mdb
mkdir -m 700 "$T/home" && chown "$OTHER" "$T/home"
rc=0
HOME="$T/home" POCL_CACHE_DIR="$T/home/pocl" as_other "$AOE" tune "$T/job.json" --bank "$T/robank" \
  --max-evals 3 >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 1 ] || fail "exit status $rc, expected 1: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "not writable.*; nothing would be saved" "$T/err" ||
  fail "expected one 'not writable' message: $(cat "$T/err")"
! grep -q variants "$T/err" "$T/out" || fail "tuned before refusing: $(cat "$T/err")"
HOME="$T/home" POCL_CACHE_DIR="$T/home/pocl" as_other "$AOE" tune "$T/job.json" --bank "$T/robank" \
  --dry-run >"$T/out2" 2>"$T/err2" || fail "--dry-run on a read-only bank failed: $(cat "$T/err2")"
! grep -q "not writable" "$T/err2" || fail "--dry-run refused: $(cat "$T/err2")"
echo "tune_readonly_bank: ok (refused at once, --dry-run runs)"
