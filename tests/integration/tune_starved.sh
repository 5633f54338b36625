#!/usr/bin/env bash
# A tuner the machine starves of CPU (tuner/cpu_wait.h): twelve busy loops of
# a "program" share the tuner's one CPU, so its threads wait for a CPU most of
# every measurement. 1. Starved during the search: the timing is not used; the
# tuner says so, waits, measures again once the CPU is free, and the job is
# tuned with the time lost reported (`waited_for_cpu_s`) and kept off its
# clock. 2. Starved from the start for longer than the job's time limit (the
# default's own timing): the job is put back in the spool for a later try
# (`<key>.retry`, counted "to retry") and nothing is written to the bank;
# its last try (the spool's third), still starved, waits the time limit and
# then times on what it gets, so a machine that is never idle still has it
# tuned. 3. AOE_WAIT_FOR_CPU=False: starved timings are used, nothing waits.
# No timing is asserted.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
PY=/usr/bin/python3
hogs=()
stop_hogs() {
  [ ${#hogs[@]} = 0 ] || { kill "${hogs[@]}" 2>/dev/null || true; wait "${hogs[@]}" 2>/dev/null || true; }
  hogs=()
}
trap 'stop_hogs; rm -rf "$T"' EXIT
fail() { echo "tune_starved: $*" >&2; for f in "$T"/err*; do echo "== $f" >&2; cat "$f" >&2; done; exit 1; }
cpu=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
start_hogs() { # twelve busy loops on the tuner's CPU, at normal priority
  for _ in $(seq 12); do taskset -c "$cpu" bash -c 'while :; do :; done' & hogs+=($!); done
}
# Waits (at most 120 s) for the pattern $2 in file $1 while the process $3 runs.
await() {
  for _ in $(seq 1200); do
    grep -q "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "$2" "$1"
}
[ -r /proc/self/schedstat ] || fail "no /proc/self/schedstat: this kernel cannot tell a starved tuner"
"$B/clients/slow_kernel" --n 4096 --iters 1000 --emit-job "$T/job.json" >/dev/null
export AOE_TUNABLES=$S/tests/tunables/slow_repeat_pad.json
unset AOE_TIME_LIMIT AOE_MAX_EVALS AOE_WAIT_FOR_CPU

# 1. Starved in the middle of the search, then the CPU is free again.
export TUNE_BANK_PATH=$T/bank1
AOE_LOG_LEVEL=debug taskset -c "$cpu" "$B/bin/aoe" tune "$T/job.json" --max-evals 12 --time-limit 60 \
  --json >"$T/out1.json" 2>"$T/err1" &
tuner=$!
await "$T/err1" 'variant [0-9]*:' "$tuner" || fail "the search did not start"
start_hogs
await "$T/err1" 'waited for a CPU [0-9]*% of a measurement' "$tuner" || fail "a starved measurement was used"
stop_hogs
wait "$tuner" || fail "aoe tune exited $? after the CPU was free again"
"$PY" - "$T/out1.json" <<'PYEOF' || fail "the result"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["ok"] and j["bank"] == "added", j
assert j["waited_for_cpu_s"] > 0, j
assert j["evaluations"] == 12, j
PYEOF

# 2. Starved from the start, longer than the time limit: put back, then tuned.
export TUNE_BANK_PATH=$T/bank2 AOE_LOG_LEVEL=info
SP=$T/spool
mkdir -m 700 "$SP"
key=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/job.json")
cp "$T/job.json" "$SP/$key.job"
start_hogs
set +e
taskset -c "$cpu" "$B/bin/aoe" tune --spool "$SP" --time-limit 3 --max-evals 3 >"$T/out2" 2>"$T/err2"
set -e
grep -q "will retry (attempt 1 of 3): starved: the machine left the tuner too little CPU" "$T/err2" ||
  fail "the starved job was not put back"
grep -q '0 tuned, 0 failed, 0 nothing to tune, 1 to retry' "$T/err2" || fail "the spool's count"
grep -q '^slow_repeat  *RETRY LATER: starved' "$T/out2" && ! grep -q FAILED "$T/out2" ||
  fail "the table does not say the job will be retried: $(cat "$T/out2")"
[ -f "$SP/$key.job" ] && [ -f "$SP/$key.retry" ] || fail "the job is not queued: $(ls "$SP")"
"$B/bin/aoe" bank list >"$T/list2" 2>&1 || true
grep -q slow_repeat "$T/list2" && fail "a starved job wrote to the bank: $(cat "$T/list2")"
echo "2 0" >"$SP/$key.retry" # two tries made, the back-off over: the next is the last
taskset -c "$cpu" "$B/bin/aoe" tune --spool "$SP" --time-limit 3 --max-evals 3 >"$T/out3" 2>"$T/err3" ||
  fail "the last try failed"
stop_hogs
grep -q "waited [0-9.]* s for a CPU (the machine was busy); then timed on what it left (the job's last try)" \
  "$T/err3" || fail "the last try did not say it timed starved"
grep -q '1 tuned' "$T/err3" || fail "the job was not tuned on its last try"
"$B/bin/aoe" bank list >"$T/list3" 2>&1
grep -q slow_repeat "$T/list3" || fail "the last try's result is not in the bank"

# 3. AOE_WAIT_FOR_CPU=False: the same starvation as in 1, nothing waits.
export TUNE_BANK_PATH=$T/bank4
AOE_WAIT_FOR_CPU=False AOE_LOG_LEVEL=debug taskset -c "$cpu" "$B/bin/aoe" tune "$T/job.json" \
  --max-evals 6 --time-limit 60 --json >"$T/out4.json" 2>"$T/err4" &
tuner=$!
await "$T/err4" 'variant [0-9]*:' "$tuner" || fail "the search did not start (3)"
start_hogs
sleep 3
stop_hogs
wait "$tuner" || fail "aoe tune exited $? (AOE_WAIT_FOR_CPU=False)"
grep -q 'waited for a CPU' "$T/err4" && fail "the tuner waited with AOE_WAIT_FOR_CPU=False"
"$PY" - "$T/out4.json" <<'PYEOF' || fail "the result (3)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["ok"] and j["waited_for_cpu_s"] == 0, j
PYEOF
echo "ok: a starved tuner waits and measures again; starved past its time limit the job is put back, and its last try is tuned"
