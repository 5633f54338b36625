#!/usr/bin/env bash
# `aoe tune --spool DIR`: a second tuner exits 0 at once while the lock is held;
# jobs are claimed and removed when done; a bad job becomes <key>.failed with a
# one-line <key>.failed.txt; a stale <key>.running is recovered; a job the bank
# already knows is skipped; a job naming its program's bank is looked up and
# saved there (--bank overrides it; a bank others can write is refused and
# the job put back); --idle-exit waits for late jobs; each job's summary row
# is written (flushed) as soon as it is done.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; ls -la "$T/spool" >&2 || true; exit 1; }
export TUNE_BANK_PATH=$T/bank AOE_TUNABLES=$S/tests/tunables/planted_good.json
SP=$T/spool
mkdir -m 700 "$SP"
"$B/clients/planted" --emit-job "$T/job.json" >/dev/null
key=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/job.json")
[[ "$key" =~ ^[0-9a-f]{32}$ ]] || fail "job has no key"
cp "$T/job.json" "$SP/$key.job"
bad=0123456789abcdef0123456789abcdef
echo 'not a job' >"$SP/$bad.job"

# 1. lock held by another process: exits 0 immediately, touches nothing.
/usr/bin/python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(30)' \
  "$SP/tuner.lock" "$T/locked" &
holder=$!
for _ in $(seq 50); do [ -e "$T/locked" ] && break; sleep 0.1; done
start=$(date +%s)
out=$("$B/bin/aoe" tune --spool "$SP" --idle-exit 20 2>&1) || fail "second tuner exited non-zero"
[ -z "$out" ] || fail "second tuner printed: $out"
[ $(( $(date +%s) - start )) -lt 5 ] || fail "second tuner waited"
[ -f "$SP/$key.job" ] || fail "job claimed while the lock was held"
kill "$holder"; wait "$holder" 2>/dev/null || true

# 2. a stale .running (its tuner died) is put back and tuned.
mv "$SP/$key.job" "$SP/$key.running"
set +e
"$B/bin/aoe" tune --spool "$SP" >"$T/out1" 2>"$T/err1"
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$T/err1"; fail "expected exit 1 (one failed job), got $rc"; }
[ ! -e "$SP/$key.job" ] && [ ! -e "$SP/$key.running" ] || fail "finished job not removed"
grep -q '^planted_scale' "$T/out1" || { cat "$T/out1"; fail "no summary row"; }
[ -f "$SP/$bad.failed" ] || fail "bad job not renamed .failed"
[ "$(wc -l <"$SP/$bad.failed.txt")" -eq 1 ] || fail "failed.txt is not one line"
grep -q 'unreadable job' "$SP/$bad.failed.txt" || fail "failed.txt: $(cat "$SP/$bad.failed.txt")"
[ "$(stat -c %a "$SP/$bad.failed.txt")" = 600 ] || fail "failed.txt not 0600"

# 3. the bank knows the key now: the same job again is skipped (and removed).
cp "$T/job.json" "$SP/$key.job"
"$B/bin/aoe" tune --spool "$SP" >"$T/out2" 2>"$T/err2" || { cat "$T/err2"; fail "skip run failed"; }
grep -q '1 skipped' "$T/err2" || { cat "$T/err2"; fail "known job not skipped"; }
[ ! -e "$SP/$key.job" ] || fail "skipped job not removed"

# 3b. the job carries its program's settings: the key is looked up in the
# program's bank, not the tuner's (which knows it); --bank overrides it; a
# bank directory others can write is refused, nothing is written there, the
# job put back. The program's tunables declare the space (MODE 0 or 6),
# where the tuner has none of its own (it would find nothing to tune), and
# its budget applies (1 evaluation); a job file uses the caller's (2).
with_settings() {
  /usr/bin/python3 - "$T/job.json" "$SP" "$1" <<'PYEOF'
import json, sys, os
j = json.load(open(sys.argv[1])); j.setdefault("runtime_extra", {})["settings"] = json.loads(sys.argv[3])
tmp = os.path.join(sys.argv[2], j["key"] + ".job.tmp")
json.dump(j, open(tmp, "w")); os.rename(tmp, os.path.join(sys.argv[2], j["key"] + ".job"))
PYEOF
}
settings() { echo "{\"bank\": \"$1\", \"tunables\": \"${2-}\", \"auto_defines\": false${3:+, \"max_evals\": $3}}"; }
with_settings "$(settings "$T/bank2")"
"$B/bin/aoe" tune --spool "$SP" --bank "$T/bank" >/dev/null 2>"$T/err3b" || fail "--bank run failed"
grep -q '1 skipped' "$T/err3b" || fail "--bank did not override the job's bank: $(cat "$T/err3b")"
[ ! -e "$T/bank2" ] || fail "--bank given, the job's bank was created"
with_settings "$(settings "$T/bank2" "$S/tests/tunables/planted_good.json" 1)"
cp "$SP/$key.job" "$T/with_settings.job"
AOE_TUNABLES='' "$B/bin/aoe" tune --spool "$SP" >/dev/null 2>"$T/err3b" ||
  fail "job's bank run failed: $(cat "$T/err3b")"
grep -q '1 tuned' "$T/err3b" || fail "the job's bank was not the one looked up: $(cat "$T/err3b")"
"$B/bin/aoe" bank list --bank "$T/bank2" --json >"$T/bank2.json"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"]
assert len(r) == 1 and r[0]["evaluations"] == 1, r' "$T/bank2.json" ||
  fail "not tuned in the job's bank with its tunables and budget: $(cat "$T/bank2.json")"
# the same job as a file named on the command line: the caller's settings
# (its tunables, its budget: both configurations), its own bank
"$B/bin/aoe" tune --bank "$T/bank3" --json "$T/with_settings.job" >"$T/files.json" 2>/dev/null ||
  fail "job file run failed"
"$B/bin/aoe" bank list --bank "$T/bank3" --json >"$T/bank3.json"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"]
assert len(r) == 1 and r[0]["evaluations"] == 2, r' "$T/bank3.json" ||
  fail "a job file did not get the caller's budget: $(cat "$T/bank3.json")"
mkdir -m 777 "$T/open"
with_settings "$(settings "$T/open")"
"$B/bin/aoe" tune --spool "$SP" >/dev/null 2>"$T/err3b" && fail "a job put back, yet exit 0"
grep -q "the job's bank: .*$T/open" "$T/err3b" || fail "no reason for the refused bank: $(cat "$T/err3b")"
grep -q '1 to retry' "$T/err3b" || fail "the job was not put back: $(cat "$T/err3b")"
[ -z "$(ls -A "$T/open")" ] || fail "something was written in a bank others can write"
rm -f "$SP/$key.job" "$SP/$key.retry"

# 4. --idle-exit: a job that appears while the tuner idles is tuned.
"$B/bin/aoe" tune --spool "$SP" --idle-exit 8 --json >"$T/out3" 2>"$T/err3" &
tuner=$!
sleep 1
/usr/bin/python3 - "$T/job.json" "$SP" <<'PYEOF'
import json, sys, os
j = json.load(open(sys.argv[1])); j["repeat_tune"] = True
key = j["key"]; tmp = os.path.join(sys.argv[2], key + ".job.tmp")
json.dump(j, open(tmp, "w")); os.rename(tmp, os.path.join(sys.argv[2], key + ".job"))
PYEOF
wait "$tuner" || { cat "$T/err3"; fail "idle tuner failed"; }
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; assert len(j)==1 and j[0]["ok"], j' "$T/out3" ||
  fail "late repeat_tune job not tuned"
# 5. the log shows each job's summary row as soon as it is done: the tuner
# is still idling (waiting for more jobs) when the row is already in its log.
"$B/bin/aoe" tune --spool "$SP" --idle-exit 60 >"$T/log5" 2>&1 &
tuner=$!
/usr/bin/python3 - "$T/job.json" "$SP" <<'PYEOF'
import json, sys, os
j = json.load(open(sys.argv[1])); j["repeat_tune"] = True
key = j["key"]; tmp = os.path.join(sys.argv[2], key + ".job.tmp")
json.dump(j, open(tmp, "w")); os.rename(tmp, os.path.join(sys.argv[2], key + ".job"))
PYEOF
for _ in $(seq 300); do grep -q '^planted_scale' "$T/log5" && break; sleep 0.2; done
kill -0 "$tuner" 2>/dev/null || fail "the idling tuner exited early: $(cat "$T/log5")"
grep -q '^planted_scale  *[0-9]' "$T/log5" ||
  { kill "$tuner"; fail "no summary row while the tuner runs: $(cat "$T/log5")"; }
kill "$tuner"; wait "$tuner" 2>/dev/null || true
echo "ok: spool lock, stale recovery, claiming, failed jobs, skip of known keys, idle exit, live log"
