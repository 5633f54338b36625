#!/usr/bin/env bash
# Planted bad variants (tests/kernels/planted_scale.cl, tests/tunables/planted.json):
# MODE values that segfault, hang, write wrong results, write one element out of
# bounds and leave an element unwritten are each rejected with the right reason;
# the tuner survives, finishes, and the bank gets a correct (default or MODE 6) policy.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
"$B/clients/planted" --emit-job "$T/job.json" >/dev/null
export TUNE_BANK_PATH=$T/bank AOE_TUNABLES=$S/tests/tunables/planted.json AOE_VARIANT_TIMEOUT=3
set +e
"$B/bin/aoe" tune --strategy brute --json "$T/job.json" >"$T/out.json" 2>"$T/err.txt"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$T/err.txt" "$T/out.json" >&2; echo "FAIL: aoe tune exited $rc" >&2; exit 1; }
"$PY" - "$T/out.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
def fail(msg):
    print("FAIL:", msg, json.dumps(j, indent=1), file=sys.stderr); sys.exit(1)
if not j["ok"]: fail("job failed")
r = j["failed_by_reason"]
want = {"crash": "SIGSEGV", "timeout": "watchdog", "wrong result": "args[1]",
        "out-of-bounds write": "guard", "unwritten output": "args[1]"}
for cat, text in want.items():
    if cat not in r or r[cat]["count"] != 1 or text not in r[cat]["example"]:
        fail("expected one '%s' failure mentioning '%s'" % (cat, text))
if "backtrace:" not in r["crash"]["example"]: fail("crash reason has no backtrace")
if j["evaluations"] != 7 or j["failures"] != 5: fail("7 evaluations with 5 failures expected")
if j["bank"] not in ("added", "updated"): fail("no record written")
mode = j["policy"]["params"].get("MODE", 0)
if mode not in (0, 6): fail("a bad MODE was kept: %s" % mode)
if not j["best_us"] <= j["default_us"]: fail("best slower than default")
PYEOF
# The tuner's own process survived every variant: the summary table works too.
"$B/bin/aoe" tune --strategy brute --dry-run "$T/job.json" >"$T/table.txt"
grep -q '^planted_scale' "$T/table.txt" || { cat "$T/table.txt" >&2; echo "FAIL: no summary row" >&2; exit 1; }
echo "ok: crash, hang, wrong result, out-of-bounds and unwritten variants each rejected; tuning finished"
