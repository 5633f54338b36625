#!/usr/bin/env bash
# Item 18: a captured job never carries bytes the program did not write. The
# client leaves a marker in freed heap memory, creates buffers without
# initialising them and launches kernels that only write them: the jobs must
# not contain the marker (those buffers are replayed synthetic), while
# buffers written by the host (clEnqueueWriteBuffer) or by an earlier launch
# the shim saw are captured with their contents.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/stale_memory"
"$client" | grep -q 'stale_memory: ok' || fail "client fails without the shim"
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" 2>"$T/err") || fail "client failed: $(cat "$T/err")"
[ "$out" = "stale_memory: ok" ] || fail "client output under the shim: $out"
n=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | wc -l)
[ "$n" -ge 3 ] || fail "expected at least 3 captured jobs, found $n: $(ls "$AOE_WORK_PATH/spool")"
"$PY" - "$AOE_WORK_PATH"/spool/*.job <<'PYEOF' || fail "captured jobs are wrong (above)"
import base64, json, sys
bad = 0
seen = {"KERN": 0, "WRIT": 0}
for path in sys.argv[1:]:
    job = json.load(open(path))
    for i, a in enumerate(job["args"]):
        if a["kind"] != "buffer" or "data_b64" not in a:
            continue
        data = base64.b64decode(a["data_b64"])
        if b"STALE" in data:  # any piece of the marker (STALE_MEM_MARKER, tiled)
            print(f"{path}: {job['program']['entry']} arg {i}: stale process memory captured")
            bad = 1
        if data[:4] == b"RNEK":
            seen["KERN"] += 1
        if data[:4] == b"WRIT":
            seen["WRIT"] += 1
for what, n in seen.items():
    if not n:
        print(f"no job holds the buffer written by {'a launch' if what == 'KERN' else 'the host'}")
        bad = 1
sys.exit(bad)
PYEOF
echo "shim_capture_stale: ok ($n jobs, no stale memory, written buffers captured)"
