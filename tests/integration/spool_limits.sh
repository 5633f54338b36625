#!/usr/bin/env bash
# Issue 12 items 8, 9, 10: the shim keeps the spool within AOE_SPOOL_MAX_JOBS
# and AOE_SPOOL_MAX_MB (one program launching many distinct kernels), a
# .failed entry stops recapture only until it expires (7 days), and the
# tuner removes the temporary files of dead writers when it starts.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
export AOE_TUNE_MODE=offline # capture only: nothing drains the spool
pyopencl_from_source
client=("$PY" "$S/tests/clients/many_kernels.py")
jobs_in() { find "$1" -maxdepth 1 -name '*.job' | wc -l; }

# 1. at most AOE_SPOOL_MAX_JOBS jobs, one message, the program unharmed.
export AOE_WORK_PATH=$T/w1
mkdir -p "$AOE_WORK_PATH"
out=$(AOE_SPOOL_MAX_JOBS=3 LD_PRELOAD="$HOOK" "${client[@]}" --kernels 6 2>"$T/err1") ||
  fail "the program failed: $(cat "$T/err1")"
[ "$out" = "launched 6 kernels" ] || fail "output: $out"
[ "$(jobs_in "$T/w1/spool")" -eq 3 ] || fail "$(jobs_in "$T/w1/spool") jobs with AOE_SPOOL_MAX_JOBS=3"
[ "$(grep -c 'is full' "$T/err1")" -eq 1 ] || fail "not one message: $(cat "$T/err1")"

# 2. at most AOE_SPOOL_MAX_MB: 256 KiB buffers, 1 MiB spool.
export AOE_WORK_PATH=$T/w2
mkdir -p "$AOE_WORK_PATH"
AOE_SPOOL_MAX_MB=1 LD_PRELOAD="$HOOK" "${client[@]}" --kernels 6 --kib 256 >/dev/null 2>"$T/err2" ||
  fail "the program failed: $(cat "$T/err2")"
n=$(jobs_in "$T/w2/spool")
bytes=$(du -sb "$T/w2/spool" | cut -f1)
[ "$n" -ge 1 ] && [ "$n" -lt 6 ] || fail "$n jobs with AOE_SPOOL_MAX_MB=1"
[ "$bytes" -le $((1024 * 1024 + 8192)) ] || fail "spool holds $bytes bytes with AOE_SPOOL_MAX_MB=1"
grep -q 'is full' "$T/err2" || fail "no message: $(cat "$T/err2")"

# 3. a .failed entry blocks recapture for 7 days, not for ever.
export AOE_WORK_PATH=$T/w3
mkdir -p "$AOE_WORK_PATH"
SP=$T/w3/spool
LD_PRELOAD="$HOOK" "${client[@]}" --kernels 1 >/dev/null 2>&1 || fail "capture run failed"
job=$(ls "$SP"/*.job)
key=$(basename "$job" .job)
mv "$job" "$SP/$key.failed"
echo "the job failed" >"$SP/$key.failed.txt"
LD_PRELOAD="$HOOK" "${client[@]}" --kernels 1 >/dev/null 2>&1 || fail "second run failed"
[ ! -e "$SP/$key.job" ] || fail "captured again although it failed today"
touch -d '8 days ago' "$SP/$key.failed" "$SP/$key.failed.txt"
LD_PRELOAD="$HOOK" "${client[@]}" --kernels 1 >/dev/null 2>"$T/err3" || fail "third run failed: $(cat "$T/err3")"
[ -f "$SP/$key.job" ] || fail "an 8-day-old failure still blocks the operator: $(cat "$T/err3"; ls -la "$SP")"

# 4. the tuner removes a dead writer's temporary job (a capture killed
# mid-write) and keeps a live writer's.
"$PY" -c 'import os; pid = os.fork()
if pid == 0: os._exit(0)
os.waitpid(pid, 0); print(pid)' >"$T/deadpid"
dead=$(cat "$T/deadpid")
head -c 1048576 /dev/zero >"$SP/$key.job.tmp$dead.tmp$dead"
sleep 300 &
live=$!
head -c 1000 /dev/zero >"$SP/0123456789abcdef0123456789abcdef.job.tmp$live.tmp$live"
AOE_TUNE_MODE=online "$AOE" tune --spool "$SP" --dry-run >"$T/out4" 2>&1 || true
kill "$live"
[ ! -e "$SP/$key.job.tmp$dead.tmp$dead" ] || fail "a dead writer's temporary file was kept: $(cat "$T/out4")"
[ -e "$SP/0123456789abcdef0123456789abcdef.job.tmp$live.tmp$live" ] || fail "a live writer's file was removed"
grep -q 'temporary files of dead writers' "$T/out4" || fail "not reported: $(cat "$T/out4")"
echo "spool_limits: ok"
