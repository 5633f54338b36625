#!/usr/bin/env bash
# Keys across runs (docs/design.md): a kernel launched with a NULL local size
# whose scalar argument changes every run is captured once. Run 1 captures
# it, `aoe tune` stores its work-group policy under its launch key and its
# family key; run 2 with another scalar captures nothing and runs the
# family's policy with the same output; a run with 5 scalar values captures
# one job.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/scalar_add"
spool="$AOE_WORK_PATH/spool"
njobs() { ls "$spool"/*.job 2>/dev/null | wc -l; }

out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 3 --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$(checksum_of "$("$client" --value 3 --checksum)")" ] ||
  fail "run 1 output differs"
[ "$(njobs)" = 1 ] || fail "run 1: expected one job, found $(njobs): $(ls "$spool")"
"$AOE" tune --spool "$spool" >"$T/tune.out" 2>&1 || fail "aoe tune failed: $(cat "$T/tune.out")"
[ "$(njobs)" = 0 ] || fail "job left in the spool"
# the result under its own key and its family's: two records, one policy
"$AOE" bank list --json >"$T/bank.json"
[ "$(json "$T/bank.json" 'len(r["records"])')" = 2 ] || fail "expected 2 records: $(cat "$T/bank.json")"
[ "$(json "$T/bank.json" 'len({json.dumps(x["policy"], sort_keys=True) for x in r["records"]}), sum(x["summary"].startswith("family (any scalar values): ") for x in r["records"])')" = "(1, 1)" ] ||
  fail "the family record differs: $(cat "$T/bank.json")"
local_size=$(json "$T/bank.json" 'r["records"][0]["policy"]["local"][:1]')

# run 2, another scalar: nothing captured, the family's policy on every launch
ref=$(checksum_of "$("$client" --value 11 --repeat 3 --checksum)")
out=$(AOE_TUNE_MODE=offline AOE_LOG_LEVEL=debug LD_PRELOAD="$HOOK" "$client" --value 11 --repeat 3 \
  --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "run 2 output differs"
[ "$(njobs)" = 0 ] || fail "run 2 captured a job: $(ls "$spool"); $(cat "$T/err")"
grep -q captured "$T/err" && fail "run 2 captured: $(cat "$T/err")"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "run 2: no hit: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["add"]+r["OPAT"]["repo_summary"]["unsatisfied"]')" = 0 ] ||
  fail "run 2: not served: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 3 ] ||
  fail "run 2: the policy was not applied: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["policy"]["local"]')" = "$local_size" ] ||
  fail "run 2: another policy than the bank's $local_size: $(cat "$r")"

# the same family in a fresh bank: 5 scalar values in one run, one job
rm -rf "$TUNE_BANK_PATH" "$spool"
ref=$(checksum_of "$("$client" --value 20 --values 5 --checksum)")
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 20 --values 5 --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "5-value run output differs"
[ "$(njobs)" = 1 ] || fail "5 scalar values: expected one job, found $(njobs): $(ls "$spool")"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["total"]')" = 5 ] || fail "expected 5 operators: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["untuned_by_reason"]["family_queued"]["operators"]')" = 4 ] ||
  fail "4 operators should wait for their family: $(cat "$r")"
# once tuned, a run with other values (in the same family) is served
"$AOE" tune --spool "$spool" >"$T/tune.out" 2>&1 || fail "aoe tune failed: $(cat "$T/tune.out")"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 40 --values 3 >/dev/null 2>"$T/err"
[ "$(njobs)" = 0 ] || fail "values 40..42 captured a job"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 3 ] || fail "values 40..42: not 3 hits: $(cat "$r")"

# A declared -D parameter (STEP) may depend on scalars: its policy serves
# other scalar values only when the declaration says which scalars matter
# ("scalars"), and then only launches with equal values of those.
declare_step() {
  printf '{"format":1,"kernels":[{"kernel":"scalar_add","parameters":[{"name":"STEP",%s%s}]}' \
    '"values":[1,16],"default":1}]' "$1" >"$T/decl.json"
  rm -rf "$TUNE_BANK_PATH" "$spool"
}
export AOE_TUNABLES=$T/decl.json
declare_step ""
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 3 >/dev/null 2>&1
"$AOE" tune --spool "$spool" >"$T/tune.out" 2>&1 || fail "aoe tune (declared) failed: $(cat "$T/tune.out")"
"$AOE" bank list --json >"$T/bank.json"
# STEP=16 is 16 times faster than the default: the -D policy, one record
[ "$(json "$T/bank.json" '[(p["name"], p["value"]) for x in r["records"] for p in x["policy"]["params"] if p["kind"] == "define"]')" = "[('STEP', 16)]" ] ||
  fail "declared without scalars: not one record with STEP 16: $(cat "$T/bank.json")"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 5 >/dev/null 2>&1
[ "$(njobs)" = 1 ] || fail "declared without scalars: another scalar value was served"

declare_step ',"scalars":[3]'
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 3 --mul 2 >/dev/null 2>&1
"$AOE" tune --spool "$spool" >"$T/tune.out" 2>&1 || fail "aoe tune (scalars) failed: $(cat "$T/tune.out")"
"$AOE" bank list --json >"$T/bank.json"
[ "$(json "$T/bank.json" 'sorted((x["summary"].startswith("family (equal declared scalars): "), [(p["name"], p["value"]) for p in x["policy"]["params"] if p["kind"] == "define"]) for x in r["records"])')" = "[(False, [('STEP', 16)]), (True, [('STEP', 16)])]" ] ||
  fail "declared with scalars: no family record with STEP 16: $(cat "$T/bank.json")"
ref=$(checksum_of "$("$client" --value 7 --mul 2 --checksum)")
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 7 --mul 2 --checksum 2>/dev/null)
[ "$(checksum_of "$out")" = "$ref" ] || fail "declared with scalars: output differs"
[ "$(njobs)" = 0 ] || fail "declared with scalars: an equal listed scalar was not served"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "declared with scalars: no hit: $(cat "$r")"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --value 7 --mul 5 >/dev/null 2>&1
[ "$(njobs)" = 1 ] || fail "declared with scalars: another value of a listed scalar was served"
echo "shim_scalar_runs: ok (local $local_size)"
