#!/usr/bin/env bash
# Item 11: the tuner's worker memory is bounded. A job with two 32 MiB
# synthetic buffers (tiny as a file, large in the worker) is skipped with a
# reason when its estimated peak is above AOE_TUNER_MAX_MB, and when it fits,
# the peak resident size of the tuner and its worker (getrusage of children)
# stays under the bound.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3
export AOE_TUNABLES=$S/tests/tunables/planted_good.json AOE_MAX_EVALS=2
n=8388608 # floats: 32 MiB per buffer
"$B/clients/planted" --n $n --emit-job "$T/full.json" >/dev/null
"$PY" - "$T/full.json" "$T/job.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
for a in j["args"]:
    if a["kind"] == "buffer":
        a.pop("data_b64", None)
        a["synthetic"] = True
json.dump(j, open(sys.argv[2], "w"))
PYEOF
rm "$T/full.json"

# peak MB of a command's process tree, its exit status and stderr in files
peak() {
  "$PY" - "$T/rc" "$T/err" "$@" <<'PYEOF'
import resource, subprocess, sys
with open(sys.argv[2], "w") as err:
    rc = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=err).returncode
open(sys.argv[1], "w").write(str(rc))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PYEOF
}

# 1. does not fit: skipped with the reason, nothing tuned
mb=$(AOE_TUNER_MAX_MB=300 peak "$B/bin/aoe" tune "$T/job.json" --bank "$T/bank1")
[ "$(cat "$T/rc")" -ne 0 ] || fail "a job above the bound was tuned (peak ${mb} MB)"
grep -q 'AOE_TUNER_MAX_MB' "$T/err" || fail "no reason naming AOE_TUNER_MAX_MB: $(cat "$T/err")"
[ "$mb" -lt 300 ] || fail "refusing the job took ${mb} MB"

# 2. fits: tuned, and the worker stayed under the bound
bound=1024
mb=$(AOE_TUNER_MAX_MB=$bound peak "$B/bin/aoe" tune "$T/job.json" --bank "$T/bank2")
[ "$(cat "$T/rc")" -eq 0 ] || fail "the job was not tuned under a ${bound} MB bound: $(cat "$T/err")"
[ "$mb" -lt "$bound" ] || fail "peak ${mb} MB is above the bound of ${bound} MB"
echo "tune_memory_bound: ok (refused at 300 MB with a reason; tuned at ${bound} MB, peak ${mb} MB)"
