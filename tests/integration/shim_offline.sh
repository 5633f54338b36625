#!/usr/bin/env bash
# (f) Offline: AOE_TUNE_MODE=offline captures the job and starts no tuner;
# `aoe tune --spool DIR` tunes it; the next run (AOE_TUNE_MODE=off: bank
# only) launches the tuned policy. `aoe run --offline` sets the same mode.
# The job carries the program's settings, paths made absolute (its bank and
# tunables named relatively) and its budget; the tuner, run with another
# TUNE_BANK_PATH, saves the result in the program's bank (where it used to
# go into the tuner's own).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/transpose"
spool="$AOE_WORK_PATH/spool"
ref=$(checksum_of "$("$client" --checksum)")
cp "$S/tests/tunables/planted_good.json" "$T/tun.json"
out=$(TUNE_BANK_PATH=../bank AOE_TUNABLES="../tun.json::$S/tests/tunables/image_blur.json" \
  AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "offline run output differs"
n=$(ls "$spool"/*.job 2>/dev/null | wc -l)
[ "$n" = 1 ] || fail "expected one job in the spool, found $n: $(ls "$spool")"
[ ! -e "$spool/tuner.log" ] || fail "offline mode started a tuner"
said=$(json "$(ls "$spool"/*.job)" '(r["runtime_extra"]["settings"], r["budget"])')
want="({'bank': '$AOE_WORK_PATH/../bank', 'tunables': '$AOE_WORK_PATH/../tun.json:$S/tests/tunables/image_blur.json', 'auto_defines': False, 'max_evals': 6, 'time_limit_s': 20}, {'max_evals': 0, 'time_limit_s': 0})"
[ "$said" = "$want" ] || fail "the job says $said"
# a second offline run does not queue the key again
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1
[ "$(ls "$spool"/*.job | wc -l)" = 1 ] || fail "duplicate job"
# off: bank only, nothing captured
rm -rf "$T/offspool"
AOE_WORK_PATH="$T/offspool" AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1 || true
[ ! -e "$T/offspool/spool" ] || fail "mode off captured a job"
TUNE_BANK_PATH="$T/tunerbank" "$AOE" tune --spool "$spool" >"$T/tune.out" 2>&1 ||
  fail "aoe tune --spool failed: $(cat "$T/tune.out")"
"$AOE" bank list --bank "$T/tunerbank" --json >"$T/tunerbank.json"
[ "$(json "$T/tunerbank.json" 'len(r["records"])')" = 0 ] || fail "the result went into the tuner's own bank"
[ -z "$(ls "$spool"/*.job 2>/dev/null)" ] || fail "job left in the spool"
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --checksum --repeat 2 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "tuned run output differs"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "no hit: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 2 ] || fail "not tuned: $(cat "$r")"
# aoe run --offline on another kernel: captured, not tuned
"$AOE" run --offline -- "$B/clients/dlopen_client" >/dev/null 2>"$T/run.err" || fail "aoe run failed: $(cat "$T/run.err")"
[ "$(ls "$spool"/*.job 2>/dev/null | wc -l)" = 1 ] || fail "aoe run --offline captured nothing: $(cat "$T/run.err")"
grep -q "aoe run: 1 operator" "$T/run.err" || fail "no summary: $(cat "$T/run.err")"
echo "shim_offline: ok"
