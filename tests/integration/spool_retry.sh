#!/usr/bin/env bash
# Issue 12 item 8: a failure that is not the job's fault (the bank's disk is
# full: "No space left on device") keeps the job queued, and it is tuned once
# the disk has room; it is never renamed .failed. The full disk is a small
# tmpfs mounted in a private mount namespace (needs root, as CI runs).
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! unshare -m true 2>/dev/null; then
  echo "spool_retry: cannot create a mount namespace here (needs root); skipped"
  exit 77
fi
mkdir -p "$T/fs" "$T/spool"
chmod 700 "$T/spool"
unshare -m bash -s "$T" "$B" "$S" <<'INNER'
set -euo pipefail
T=$1 B=$2 S=$3
fail() { echo "FAIL: $*" >&2; ls -la "$T/spool" >&2 || true; exit 1; }
mount -t tmpfs -o size=8m tmpfs "$T/fs"
export TUNE_BANK_PATH=$T/fs/bank AOE_TUNABLES=$S/tests/tunables/planted_good.json AOE_MAX_EVALS=4
SP=$T/spool
keyof() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$1"; }
"$B/clients/planted" --emit-job "$T/job1.json" >/dev/null
"$B/clients/planted" --n 128 --emit-job "$T/job2.json" >/dev/null
k1=$(keyof "$T/job1.json") k2=$(keyof "$T/job2.json")
# the bank exists (its lock file is sized) before the disk fills up
cp "$T/job1.json" "$SP/$k1.job"
"$B/bin/aoe" tune --spool "$SP" >"$T/out0" 2>&1 || { cat "$T/out0"; fail "first tune failed"; }
dd if=/dev/zero of="$T/fs/filler" bs=4k 2>/dev/null || true
cp "$T/job2.json" "$SP/$k2.job"
"$B/bin/aoe" tune --spool "$SP" --json >"$T/out1.json" 2>"$T/out1" || true
grep -q 'No space left on device' "$T/out1" || { cat "$T/out1"; fail "the bank did not run out of space"; }
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]
sys.exit(not (len(j) == 1 and not j[0]["ok"] and j[0]["will_retry"]))' "$T/out1.json" ||
  fail "--json does not say the job will be retried: $(cat "$T/out1.json")"
[ ! -e "$SP/$k2.failed" ] || fail "a full disk marked the job failed: $(cat "$SP/$k2.failed.txt")"
[ -f "$SP/$k2.job" ] || { cat "$T/out1"; fail "the job is not queued any more"; }
# room again, and the retry is due (its back-off delay over): tuned
rm -f "$T/fs/filler"
echo "1 0" >"$SP/$k2.retry"
"$B/bin/aoe" tune --spool "$SP" >"$T/out2" 2>&1 || { cat "$T/out2"; fail "the retry failed"; }
grep -q '1 tuned' "$T/out2" || { cat "$T/out2"; fail "the job was not tuned on retry"; }
[ ! -e "$SP/$k2.job" ] && [ ! -e "$SP/$k2.retry" ] || fail "the retried job was not removed"
"$B/bin/aoe" bank list >"$T/list" 2>&1 || true
[ "$(grep -c planted_scale "$T/list")" -ge 2 ] || { cat "$T/list"; fail "the result is not in the bank"; }
INNER
echo "ok: a job failing on a full disk stays queued and is tuned once there is room"
