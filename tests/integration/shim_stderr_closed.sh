#!/usr/bin/env bash
# A program whose stderr is a pipe nobody reads any more (`prog 2>&1 >out |
# head -1`, a log collector that went away): the shim's messages on stderr
# must not kill it with SIGPIPE where it exits 0 without the shim. The C
# client (a capture, its end-of-run line) and pyopencl (debug messages from
# every launch), with stderr the write end of a pipe whose read end is closed
# before the program starts, SIGPIPE at its default action. A SIGPIPE that is
# the program's own still ends it as without the shim (`yes | head -1`).
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
echo "shim_stderr_closed: exit 0 with stderr closed (C client, pyopencl at debug level), output" \
  "unchanged; a program's own SIGPIPE still ends it"
