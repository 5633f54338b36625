#!/usr/bin/env bash
# `aoe bank` when memory runs out: every command (list, list --json, show,
# show --json, stats, verify, export, import, merge, delete) with every Nth
# allocation failing (tests/failalloc: aoe's own code and the libraries it
# calls), for N from 1 to 1500. Each run either succeeds with its whole
# output (an export or a JSON list holds every record, every field) or exits
# 1 with a message, never a crash and never a silent failure; an import into
# a fresh bank adds all of its records or none; the bank it ran on is
# unchanged and verifies.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
need_failalloc bank_oom
# A bank of 6 records on two devices (three kernels' jobs from PoCL, each
# under two fingerprints) and its export.
bank=$T/bank
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$B/clients/transpose" >/dev/null 2>&1
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$B/clients/gemm" >/dev/null 2>&1
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$B/clients/reduce" >/dev/null 2>&1
for job in "$AOE_WORK_PATH"/spool/*.job; do
  "$PY" "$S/tests/fakecl/record_for_job.py" "$job" 16 |
    "$PY" -c 'import json,sys
d=json.load(sys.stdin); r=d["records"][0]; p=r["policy"]; p["local"]=[0,0,0][:p["work_dim"]]
second=dict(r, fingerprint=r["fingerprint"] + "|second"); d["records"].append(second)
json.dump(d,sys.stdout)' >"$T/rec.json"
  "$AOE" bank --bank "$bank" import "$T/rec.json" >/dev/null
done
"$AOE" bank --bank "$bank" export -o "$T/all.json" 2>/dev/null
records() { "$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["records"]))' "$1"; }
# whether FILE holds exactly the records of the full export, every field
whole() {
  "$PY" -c 'import json,sys
a, b = (json.load(open(f))["records"] for f in sys.argv[1:])
sys.exit(a != b)' "$1" "$T/all.json"
}
n_all=$(records "$T/all.json")
[ "$n_all" -ge 4 ] || fail "the bank holds $n_all records: $(cat "$T/all.json")"
first() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"][0][sys.argv[2]])' "$T/all.json" "$1"; }
key=$(first key) fp=$(first fingerprint)
cp -r "$bank" "$T/other"
before=$("$AOE" bank --bank "$bank" list)
export FAILALLOC_OBJECTS=@main:libcjson.so:liblmdb.so:libxxhash.so FAILALLOC_EXE=aoe
export FAILALLOC_REPORT=$T/report
mkdir -p "$T/report"
runs=0 failures=0 injected=0
for e in $(seq 1 24) 30 40 55 75 100 140 200 280 400 560 800 1100 1500; do
  for cmd in list list_json show show_json stats verify export merge delete import; do
    rm -f "$T"/report/* "$T/out.json"
    target=$bank
    case $cmd in
    list_json) args=(list --json) ;;
    show) args=(show "$key" --fingerprint "$fp") ;;
    show_json) args=(show --json "$key" --fingerprint "$fp") ;;
    export) args=(export -o "$T/out.json") ;;
    merge) args=(merge "$T/other") ;;
    delete) args=(delete ffffffffffffffffffffffffffffffff) ;; # no such record: exits 1
    import) args=(import "$T/all.json") target=$T/fresh && rm -rf "$T/fresh" ;;
    *) args=("$cmd") ;;
    esac
    rc=0
    FAILALLOC_EVERY=$e LD_PRELOAD=$FAIL "$AOE" bank --bank "$target" "${args[@]}" \
      >"$T/stdout" 2>"$T/stderr" || rc=$?
    case $rc in
    0) ;;
    1) [ -s "$T/stderr" ] || fail "every $e allocations failing: '${args[*]}' failed without a message" ;;
    *) fail "every $e: '${args[*]}' exit status $rc: $(cat "$T/stderr")" ;;
    esac
    runs=$((runs + 1))
    [ $rc = 0 ] || failures=$((failures + 1))
    n=$(awk '{print $4}' "$T"/report/failalloc.* 2>/dev/null || echo 0)
    injected=$((injected + ${n:-0}))
    if [ $rc = 0 ]; then
      case $cmd in
      export) whole "$T/out.json" || fail "every $e: exit 0, an export unlike the full one: $(cat "$T/out.json")" ;;
      list_json) whole "$T/stdout" || fail "every $e: exit 0, a list unlike the export: $(cat "$T/stdout")" ;;
      delete) fail "every $e: deleted a record that does not exist" ;;
      esac
    fi
    if [ $cmd = import ]; then
      got=0
      [ -e "$T/fresh/data.mdb" ] && got=$("$AOE" bank --bank "$T/fresh" list --json 2>/dev/null | "$PY" -c \
        'import json,sys; print(len(json.load(sys.stdin)["records"]))' 2>/dev/null || echo 0)
      if [ $rc = 0 ] && [ "$got" != "$n_all" ]; then
        fail "every $e: import exit 0 with $got of $n_all records"
      elif [ $rc != 0 ] && [ "$got" != 0 ]; then
        fail "every $e: a failed import left $got of $n_all records"
      fi
    fi
  done
done
[ "$("$AOE" bank --bank "$bank" list)" = "$before" ] || fail "the bank changed: $("$AOE" bank --bank "$bank" list)"
"$AOE" bank --bank "$bank" verify >/dev/null || fail "the bank does not verify"
if [ $failures = 0 ] || [ $failures = $runs ] || [ $injected -lt $failures ]; then
  fail "$failures of $runs commands failed, $injected allocations failed: the sweep tests nothing"
fi
echo "bank_oom: $runs runs on a bank of $n_all records, $injected allocations failed, $failures" \
  "commands failed with a message;" \
  "no crash, no partial export or list, imports all or nothing, the bank unchanged"
