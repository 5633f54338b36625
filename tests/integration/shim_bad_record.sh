#!/usr/bin/env bash
# Item 6: a bank is input. Records the issue found applied without checks (a
# parameter name carrying build options, work sizes out of bounds) are
# refused by `aoe bank import` with a reason; written raw into the bank's
# LMDB file they are refused when read, and the program under the shim
# computes what it computes without it (the client checks its output).
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/planted"
RAW="$B/clients/bank_raw_put"
n=4096
# the client checks its output (out = 2 * in): "ok", else "MISMATCH" and exit 1
"$client" --n $n --repeat 100 | grep -q ' ok$' || fail "the client fails without the shim"

# capture the launch's job: its key and fingerprint are what the shim looks up
# (planted_scale has its own local size: captured for its declaration)
AOE_TUNABLES=$S/tests/tunables/planted.json AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" \
  "$client" --n $n >/dev/null 2>"$T/cap.err" ||
  fail "capture run failed: $(cat "$T/cap.err")"
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1 || true)
[ -n "$job" ] || fail "no job captured"
fp=$(json "$job" 'r["fingerprint"]')
key=$(json "$job" 'r["key"]')
rm -f "$AOE_WORK_PATH"/spool/*.job

# 1. import: each bad record rejected with its reason, nothing stored
rec() { # NAME-VALUE-PARAMS-JSON GLOBAL LOCAL
  printf '{"fingerprint":"%s","key":"%s","runtime":"opencl","kernel_name":"planted_scale",' "$fp" "$key"
  printf '"tuned_us":1,"default_us":2,"policy":{"work_dim":1,"global":[%s],"local":[%s],"params":%s}}' \
    "$2" "$3" "$1"
}
{
  printf '{"format":"aoe-bank","version":1,"records":['
  rec '[{"name":"A -DMODE=3 -DB","value":1,"define":true}]' $n 64
  printf ','
  rec '[{"name":"MODE","value":0,"define":true},{"name":"MODE","value":3,"define":true}]' $n 64
  printf ','
  rec '[]' 8589934592 64
  printf ','
  rec '[]' 64 96
  printf ','
  rec '[]' $n 16384
  printf ']}'
} >"$T/bad.json"
rc=0
"$AOE" bank import "$T/bad.json" >"$T/imp.out" 2>"$T/imp.err" || rc=$?
[ "$rc" -eq 1 ] || fail "import of bad records exited $rc: $(cat "$T/imp.err")"
for want in "records[0] rejected: param 0 name 'A -DMODE=3 -DB' is not a C identifier" \
  "records[1] rejected: param MODE appears twice" "records[2] rejected: global[0] 8589934592" \
  "records[3] rejected: local[0] 96 is above global[0] 64" \
  "records[4] rejected: local[0] 16384 is above 8192"; do
  grep -qF -- "$want" "$T/imp.err" || fail "import: no '$want' in: $(cat "$T/imp.err")"
done
[ -z "$("$AOE" bank list 2>/dev/null | grep planted_scale || true)" ] || fail "a bad record was stored"

# 2. the same name written raw into LMDB: the shim refuses the record
"$RAW" "$TUNE_BANK_PATH" "$fp" "$key" $n 64 "A -DMODE=3 -DB=1" || fail "raw put failed"
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --n $n --repeat 300 2>"$T/run.err") ||
  fail "output changed by a raw bank record: $out $(cat "$T/run.err")"
grep -q ' ok$' <<<"$out" || fail "client output: $out"
grep -q "is not a C identifier" "$T/run.err" || fail "the shim did not refuse the record: $(cat "$T/run.err")"
res=$(latest_result)
[ -z "$res" ] || [ "$(json "$res" 'r["OPAT"]["repo_summary"].get("hit", 0)')" = 0 ] ||
  fail "the bad record counted as a bank hit: $res"

# 3. merge and verify refuse it too
"$AOE" bank merge "$TUNE_BANK_PATH" --bank "$T/bank2" >/dev/null 2>"$T/merge.err" || true
[ -z "$("$AOE" bank list --bank "$T/bank2" 2>/dev/null | grep -i planted || true)" ] ||
  fail "merge copied the bad record"
echo "shim_bad_record: ok (5 bad records rejected on import; raw record refused, output unchanged)"
