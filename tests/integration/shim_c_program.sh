#!/usr/bin/env bash
# (a) A C program run twice under the shim with a fresh bank: the first run
# captures its operator and the background tuner tunes it; the second run
# launches the tuned policy (the result file shows a hit and tuned launches)
# and its output is bit-identical to a run without the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/transpose"
ref=$(checksum_of "$("$client" --checksum)")
[ -n "$ref" ] || fail "no checksum from the client"
out1=$(LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err1")
[ "$(checksum_of "$out1")" = "$ref" ] || fail "first run output differs: $out1"
compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || compgen -G "$AOE_WORK_PATH/spool/*.running" \
  >/dev/null || [ -n "$("$AOE" bank list --json 2>/dev/null | grep -o transpose || true)" ] ||
  fail "no job captured: $(cat "$T/err1")"
r1=$(latest_result)
[ "$(json "$r1" 'r["OPAT"]["repo_summary"]["total"]')" = 1 ] || fail "first result file: $(cat "$r1")"
wait_drained "$AOE_WORK_PATH/spool"
"$AOE" bank list | grep -q transpose || fail "tuner left no record: $(cat "$AOE_WORK_PATH/spool/tuner.log")"
out2=$(LD_PRELOAD="$HOOK" "$client" --checksum --repeat 3 2>"$T/err2")
[ "$(checksum_of "$out2")" = "$ref" ] || fail "tuned run output differs: $out2 vs $ref"
r2=$(latest_result)
[ "$r2" != "$r1" ] || fail "second run wrote no result file"
[ "$(json "$r2" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "no hit: $(cat "$r2")"
[ "$(json "$r2" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 3 ] ||
  fail "tuned policy not launched: $(cat "$r2")"
[ "$(json "$r2" 'r["OPAT"]["modified_operators"][0]["call_site"]')" = "transpose:tc_run" ] ||
  fail "call site: $(cat "$r2")"
# "tuned policies active" only when the tuner kept a policy faster than the
# program's default (on a busy machine it may keep the default)
if [ "$(json "$r2" 'int(r["OPAT"]["modified_operators"][0]["after_us"] < r["OPAT"]["modified_operators"][0]["before_us"])')" = 1 ]; then
  grep -q "tuned policies active" "$T/err2" || fail "no 'tuned policies active' line: $(cat "$T/err2")"
  [ "$(grep -c '^aoe: ' "$T/err2")" = 2 ] || fail "expected 2 lines on stderr: $(cat "$T/err2")"
else
  ! grep -q "tuned policies active" "$T/err2" || fail "the default announced as tuned: $(cat "$T/err2")"
  [ "$(grep -c '^aoe: ' "$T/err2")" = 1 ] || fail "expected 1 line on stderr: $(cat "$T/err2")"
fi
echo "shim_c_program: ok (checksum $ref, second run hit)"
