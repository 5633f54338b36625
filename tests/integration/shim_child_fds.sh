#!/usr/bin/env bash
# The programs a program under the shim starts inherit none of the shim's
# files: a pyopencl program takes the hit path (the bank open, a record
# applied, the result file written at exit), then runs a child through
# os.system that lists its open descriptors. None may point into the bank or
# the work directory (LMDB leaves the data file's descriptor inheritable; the
# shim marks it close-on-exec). And the other way round: the background tuner
# keeps none of the program's inheritable descriptors.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
pyopencl_from_source
client=("$S/tests/clients/pyopencl_client.py" --size 128 --repeat 2)
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$PY" "${client[@]}" >/dev/null 2>&1
job=$(grep -l '"blur' "$AOE_WORK_PATH"/spool/*.job | head -1) || fail "no job captured"
"$PY" "$S/tests/fakecl/record_for_job.py" "$job" 16 >"$T/rec.json"
"$AOE" bank import "$T/rec.json" >/dev/null
rm -rf "$AOE_WORK_PATH/spool"
# the client in this interpreter, then a child (without the shim) listing its descriptors
FDS=$T/fds AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$PY" -c 'import os, runpy, sys
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
sys.stdout.flush()
os.system("env -u LD_PRELOAD ls -l /proc/self/fd/ > " + os.environ["FDS"])' "${client[@]}" \
  >"$T/out" 2>"$T/err" || fail "the program failed: $(cat "$T/err")"
grep -q '1 hit' "$T/err" || fail "no hit, the bank was not used: $(cat "$T/err")"
[ -s "$T/fds" ] || fail "the child listed no descriptors"
! grep -F -e "-> $TUNE_BANK_PATH" -e "-> $AOE_WORK_PATH" "$T/fds" ||
  fail "the child inherited the shim's files: $(cat "$T/fds")"
nfds=$(grep -c -- '->' "$T/fds")

# The background tuner the shim starts keeps none of the program's
# descriptors: a program holding an inheritable pipe's write end (as a C
# program's pipe() or socket() without CLOEXEC) captures a job, the tuner
# starts, the program closes its end and exits; its reader must see the end
# of file at once, while the tuner still runs (it stays AOE_TUNER_IDLE_EXIT
# seconds after its last job).
rm -rf "$TUNE_BANK_PATH" "$AOE_WORK_PATH/spool"
"$PY" - "$HOOK" "${client[@]}" >"$T/pipe" 2>"$T/err" <<'PY' ||
import os, select, subprocess, sys
hook, client = sys.argv[1], sys.argv[2:]
r, w = os.pipe()
env = dict(os.environ, LD_PRELOAD=hook, AOE_TUNE_MODE="online")
subprocess.run([sys.executable] + client, env=env, pass_fds=(w,), check=True,
               stdout=subprocess.DEVNULL)
os.close(w)  # the program's copy closed with it: no writer left but an inheritor
eof = select.select([r], [], [], 10)[0] and os.read(r, 1) == b""
print("eof" if eof else "no eof")
PY
  fail "the pipe check failed: $(cat "$T/err")"
[ "$(cat "$T/pipe")" = eof ] ||
  fail "a program's inheritable pipe under the shim: no end of file while the tuner runs"
# The end of file was not the tuner's exit: a tuner holds tuner.lock after it.
# It closes inherited descriptors first and opens the lock after, and at idle
# priority on a busy machine that can be seconds later, so wait for it. Only
# this program started tuners, all before it exited, and one takes the lock
# and keeps it AOE_TUNER_IDLE_EXIT seconds after its job: a tuner seen
# holding it now was alive when the reader saw the end of file.
for ((i = 0; i < 300; i++)); do
  fuser -s "$AOE_WORK_PATH/spool/tuner.lock" 2>/dev/null && break
  sleep 0.2
done
((i < 300)) || fail "no tuner took the spool's lock within 60s: the check proves nothing"
echo "shim_child_fds: after a hit, a child of the program holds none of the shim's files" \
  "($nfds descriptors, none into the bank or the work directory); the background tuner holds" \
  "none of the program's (its pipe reached end of file while the tuner ran)"
