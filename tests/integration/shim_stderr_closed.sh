#!/usr/bin/env bash
# A program whose stderr is a pipe nobody reads any more (`prog 2>&1 >out |
# head -1`, a log collector that went away): the shim's messages on stderr
# must not kill it with SIGPIPE where it exits 0 without the shim. The C
# client (a capture, its end-of-run line) and pyopencl (debug messages from
# every launch), with stderr the write end of a pipe whose read end is closed
# before the program starts, SIGPIPE at its default action. A SIGPIPE that is
# the program's own still ends it as without the shim (`yes | head -1`).
# And a program started with stderr closed does not get one of the shim's
# files as its stderr.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
# CMD...: run with stderr a pipe without a reader; prints the exit status
closed_stderr() {
  "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # Python ignores it; the program must not
r, w = os.pipe()
os.close(r)
os.dup2(w, 2)
os.execv(sys.argv[1], sys.argv[1:])' "$@" >"$T/out" && echo 0 || echo $?
}
want=$("$B/clients/transpose" --checksum | grep -o 'checksum=.*')
[ "$(closed_stderr "$B/clients/transpose" --checksum)" = 0 ] || fail "the client alone fails"
rc=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" closed_stderr "$B/clients/transpose" --checksum)
[ "$rc" = 0 ] || fail "transpose under the shim, stderr closed: exit status $rc (141: SIGPIPE)"
[ "$(grep -o 'checksum=.*' "$T/out")" = "$want" ] || fail "transpose: output differs: $(cat "$T/out")"
compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "the shim did not run (no job captured)"
pyopencl_from_source
rc=$(AOE_LOG_LEVEL=debug AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" closed_stderr "$PY" \
  "$S/tests/clients/pyopencl_client.py" --size 128 --checksum)
[ "$rc" = 0 ] || fail "pyopencl under the shim (debug), stderr closed: exit status $rc"
# the program's own SIGPIPE is untouched
rc=$(set +o pipefail; LD_PRELOAD="$HOOK" yes | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}")
[ "$rc" = 141 ] || fail "yes under the shim: exit status $rc, not 141 (its own SIGPIPE)"

# stderr closed outright (`prog 2>&-`): the shim's first open() would take
# descriptor 2, so the bank's files or the shim's own pipe became the
# program's stderr, and every message (the program's and the shim's) went
# into them. The shim puts /dev/null there first. On the fake runtime, which
# opens no file of its own, with a bank record (a hit: the bank opened).
AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$B/fakecl LD_PRELOAD="$HOOK" "$B/clients/overhead_client" \
  --batches 1 --launches 10 >/dev/null 2>&1
fjob=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | xargs grep -l '"nop' | head -1) ||
  fail "no job from the fake runtime's client"
"$PY" "$S/tests/fakecl/record_for_job.py" "$fjob" 16 >"$T/rec.json"
"$AOE" bank import "$T/rec.json" >/dev/null
AOE_LOG_LEVEL=debug AOE_TUNE_MODE=off LD_LIBRARY_PATH=$B/fakecl LD_PRELOAD="$HOOK" "$PY" -c \
  'import os, sys
os.close(2)
os.execv(sys.argv[1], sys.argv[1:])' "$B/clients/overhead_client" --batches 1 --launches 10 \
  --warmup-ms 1500 >/dev/null &
pid=$!
# the first thing descriptor 2 becomes (a fixed pause could fall before the
# shim started on a loaded machine); the client runs 1.5 s after its first launch
fd2=closed
for _ in $(seq 400); do
  fd2=$(readlink "/proc/$pid/fd/2" 2>/dev/null) && [ "$(readlink "/proc/$pid/exe")" = \
    "$(readlink -f "$B/clients/overhead_client")" ] && break
  fd2=closed
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
wait $pid || fail "the fake runtime's client failed with stderr closed"
[ "$fd2" = /dev/null ] || fail "with stderr closed, descriptor 2 of the program became $fd2"
! grep -q 'aoe:' "$TUNE_BANK_PATH"/*.mdb || fail "the shim's messages went into the bank's files"
echo "shim_stderr_closed: exit 0 with stderr a closed pipe (C client, pyopencl at debug level)," \
  "output unchanged; a program's own SIGPIPE still ends it; with stderr closed outright" \
  "descriptor 2 is /dev/null, not a file of the shim's"
