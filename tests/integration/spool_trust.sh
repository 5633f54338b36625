#!/usr/bin/env bash
# Issue 12 items 5 and 13: a job is code, so `aoe tune --spool` runs only the
# user's own regular job files in the user's own spool. A FIFO named like a
# job (or like a claimed one) never blocks the tuner and is neither claimed
# nor put back; a job of another user is left where it is, unrun; a spool
# directory of another user is refused as a whole.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
OTHER=aoe_i12_spool
made_user=0
cleanup() {
  rm -rf "$T"
  if [ "$made_user" = 1 ]; then userdel "$OTHER" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
chmod 755 "$T"
fail() { echo "FAIL: $*" >&2; ls -la "$SP" >&2 || true; exit 1; }
export TUNE_BANK_PATH=$T/bank AOE_TUNABLES=$S/tests/tunables/planted_good.json AOE_MAX_EVALS=4
SP=$T/spool
mkdir -m 700 "$SP"
keyof() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$1"; }
"$B/clients/planted" --emit-job "$T/job1.json" >/dev/null
"$B/clients/planted" --n 128 --emit-job "$T/job2.json" >/dev/null
k1=$(keyof "$T/job1.json") k2=$(keyof "$T/job2.json")

# 1. FIFOs: the tuner finishes (bounded by timeout), tunes the real job and
# leaves the FIFOs as they are.
f1=0123456789abcdef0123456789abcdef f2=fedcba9876543210fedcba9876543210
mkfifo -m 600 "$SP/$f1.job" "$SP/$f2.running"
cp "$T/job1.json" "$SP/$k1.job"
set +e
timeout 60 "$B/bin/aoe" tune --spool "$SP" >"$T/out1" 2>&1
rc=$?
set -e
[ "$rc" -ne 124 ] || fail "the tuner hung on a FIFO"
[ "$rc" -eq 0 ] || { cat "$T/out1"; fail "tuner exit $rc"; }
grep -q '1 tuned' "$T/out1" || { cat "$T/out1"; fail "the regular job was not tuned"; }
[ -p "$SP/$f1.job" ] || fail "the FIFO job was moved"
[ -p "$SP/$f2.running" ] && [ ! -e "$SP/$f2.job" ] || fail "the FIFO .running was put back"
grep -q "ignoring $f1.job: not a regular file" "$T/out1" || { cat "$T/out1"; fail "FIFO not reported"; }
rm -f "$SP/$f1.job" "$SP/$f2.running"

if [ "$(id -u)" -ne 0 ]; then
  echo "spool_trust: not root, cannot create a second user: the other-user part is not run"
  echo "ok: FIFOs in the spool neither block nor get claimed; the rest skipped"
  exit 77
fi
userdel "$OTHER" >/dev/null 2>&1 || true
useradd -M -r -s /usr/sbin/nologin "$OTHER"
made_user=1

# 2. a job owned by another user in our spool: not run, not moved, reported.
cp "$T/job2.json" "$SP/$k2.job"
chown "$OTHER" "$SP/$k2.job"
"$B/bin/aoe" tune --spool "$SP" >"$T/out2" 2>&1 || { cat "$T/out2"; fail "tuner failed"; }
grep -q '0 tuned, 0 failed' "$T/out2" || { cat "$T/out2"; fail "another user's job was run"; }
[ -f "$SP/$k2.job" ] && [ "$(stat -c %U "$SP/$k2.job")" = "$OTHER" ] || fail "the foreign job was moved"
grep -q "ignoring $k2.job: owned by uid" "$T/out2" || { cat "$T/out2"; fail "foreign job not reported"; }
rm -f "$SP/$k2.job"

# 3. a spool directory owned by another user: refused with one message, its
# job left alone (not run, not moved).
OSP=$T/other_spool
mkdir -m 700 "$OSP"
cp "$T/job2.json" "$OSP/$k2.job"
chown -R "$OTHER" "$OSP"
set +e
"$B/bin/aoe" tune --spool "$OSP" >"$T/out3" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || { cat "$T/out3"; fail "another user's spool was accepted"; }
grep -q "refusing.*owned by another user" "$T/out3" || { cat "$T/out3"; fail "no clear message"; }
[ "$(wc -l <"$T/out3")" -eq 1 ] || { cat "$T/out3"; fail "more than one line"; }
[ -f "$OSP/$k2.job" ] || fail "the job in the other user's spool was claimed"
echo "ok: FIFOs neither block nor get claimed, other users' jobs and spools are not run"
