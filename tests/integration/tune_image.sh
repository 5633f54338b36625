#!/usr/bin/env bash
# Image and sampler arguments through the tuner on PoCL (tests/clients/
# image_blur.c: a 2-D image read through a sampler, written to a write-only
# image, NULL local size), as CL_RGBA/CL_UNORM_INT8 and CL_R/CL_FLOAT:
# `aoe tune` replays the job, verifies every work-group size bit-exactly and
# stores a policy, and the policy replayed by the program gives a
# bit-identical output; a planted variant that writes one wrong pixel is
# rejected as a wrong result; a job whose pixel_bytes does not match its
# format is refused with one message naming it.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "tune_image: $*" >&2; exit 1; }
PY=/usr/bin/python3
client=$B/clients/image_blur
export TUNE_BANK_PATH=$T/bank
checksum() { "$client" "$@" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p'; }

for fmt in rgba float; do
  flag=""
  [ "$fmt" = float ] && flag=--float
  "$client" $flag --emit-job "$T/$fmt.job" >/dev/null || fail "$fmt: the client failed"
  set +e
  "$B/bin/aoe" tune --max-evals 8 --time-limit 60 --json "$T/$fmt.job" >"$T/$fmt.json" 2>"$T/$fmt.err"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "$fmt: aoe tune exited $rc: $(cat "$T/$fmt.err" "$T/$fmt.json")"
  local_size=$("$PY" - "$T/$fmt.json" "$fmt" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
def fail(msg):
    print("FAIL: %s: %s" % (sys.argv[2], msg), json.dumps(j, indent=1), file=sys.stderr); sys.exit(1)
if not j["ok"]: fail("job failed: %s" % j["error"])
if not j["space"].startswith("WG0 in"): fail("not a work-group size search")
if j["evaluations"] < 2: fail("fewer than two variants evaluated")
if j["failures"]: fail("a work-group size gave another output")
if j["bank"] != "added": fail("no policy stored")
print(" ".join(str(v) for v in j["policy"]["local"]))
PYEOF
) || fail "$fmt: see above"
  want=$(checksum $flag)
  [ -n "$want" ] || fail "$fmt: no checksum"
  # the stored policy, and two other group sizes, replayed by the program itself
  for l in "$local_size" "8 4" "16 2"; do
    [ "$l" = "0 0" ] && continue
    got=$(checksum $flag --local $l)
    [ "$got" = "$want" ] || fail "$fmt: local $l gives $got, NULL local $want"
  done
  echo "ok: $fmt: tuned (policy local $local_size), outputs bit-identical"
done

# Nothing captured: a float image gets finite synthetic pixels and replays.
"$client" --float --synthetic --emit-job "$T/syn.job" >/dev/null
"$B/bin/aoe" tune --max-evals 4 --dry-run --json "$T/syn.job" >"$T/syn.json" 2>"$T/syn.err" ||
  fail "synthetic: $(cat "$T/syn.err" "$T/syn.json")"
"$PY" - "$T/syn.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
if not j["ok"] or j["failures"] or not j["replay"].startswith("synthetic"):
    print("FAIL: synthetic:", json.dumps(j, indent=1), file=sys.stderr); sys.exit(1)
PYEOF
echo "ok: a synthetic float image replays"

# A planted bad variant (BREAK=1 writes pixel (3, 2) wrong): a wrong result.
AOE_TUNABLES=$S/tests/tunables/image_blur.json "$B/bin/aoe" tune --strategy brute --max-evals 6 \
  --json "$T/rgba.job" >"$T/bad.json" 2>"$T/bad.err" || fail "planted: $(cat "$T/bad.err")"
"$PY" - "$T/bad.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
def fail(msg):
    print("FAIL: planted:", msg, json.dumps(j, indent=1), file=sys.stderr); sys.exit(1)
if not j["ok"]: fail("job failed")
r = j["failed_by_reason"]
if set(r) != {"wrong result"} or r["wrong result"]["count"] < 1: fail("no wrong result")
if "args[2]: 1 bytes differ (first at byte 524" not in r["wrong result"]["example"]:
    fail("not the planted pixel")
if j["policy"]["params"].get("BREAK", 0) != 0: fail("the bad variant was kept")
PYEOF
echo "ok: the planted wrong pixel is rejected"

# pixel_bytes that do not match the format: one message naming it.
"$client" --pixel-bytes 3 --emit-job "$T/pb.job" >/dev/null
set +e
"$B/bin/aoe" tune --max-evals 4 "$T/pb.job" >"$T/pb.out" 2>"$T/pb.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "pixel_bytes: expected exit 1, got $rc"
msg='args[0]: pixel_bytes 3 does not match the image format CL_RGBA/CL_UNORM_INT8 (4 bytes)'
grep -qF "FAILED: $msg" "$T/pb.out" || fail "pixel_bytes: unclear: $(cat "$T/pb.out")"
[ "$(grep -cF "$msg" "$T/pb.err")" -eq 1 ] || fail "pixel_bytes: not said once: $(cat "$T/pb.err")"
echo "ok: a wrong pixel_bytes is refused naming the format"
