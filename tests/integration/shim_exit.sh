#!/usr/bin/env bash
# Issue 12 item 2: a program that exits while the shim builds a -D variant of
# its kernel must exit normally with its whole output. (a) tests/fakecl, whose
# compiler state an exit handler tears down as PoCL's (clang's) does. (b) PoCL with
# its kernel cache off, so the variant build is under way at exit: 100 runs of
# a one-launch program and 20 of an 8-thread one, 0 crashes, output complete.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/exit_launch"
export AOE_LOG_LEVEL=error

# A bank with one record for the client's operator: local size 64, -D $1.
bank_for() { # bank_dir define [client args...]
  local bank=$1 def=$2
  shift 2
  rm -rf "$AOE_WORK_PATH/spool"
  AOE_TUNE_MODE=offline TUNE_BANK_PATH="$bank.none" LD_PRELOAD="$HOOK" "$client" "$@" >/dev/null
  local job
  job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
  "$PY" "$S/tests/fakecl/record_for_job.py" "$job" 64 "$def" >"$T/rec.json"
  "$AOE" bank --bank "$bank" import "$T/rec.json" >/dev/null
}

# (a) the fake runtime: its compiler state is torn down by an exit handler
# registered at the program's own build; the variant build is under way at
# exit and must neither run beside that teardown nor start after it
export LD_LIBRARY_PATH="$B/fakecl"
bank_for "$T/fakebank" AOE_EXIT_SLOW=1 --no-check
rm -f "$T/mark"
rc=0
out=$(FAKECL_BUILD_SLOW=AOE_EXIT_SLOW FAKECL_BUILD_SLOW_MARK="$T/mark" AOE_TUNE_MODE=off \
  TUNE_BANK_PATH="$T/fakebank" LD_PRELOAD="$HOOK" timeout 20 "$client" --no-check \
  --wait-file "$T/mark" 2>"$T/err") || rc=$?
[ -e "$T/mark" ] || fail "the variant build never started: $(cat "$T/err")"
[ "$rc" = 0 ] || fail "exit during a variant build: status $rc: $(cat "$T/err")"
grep -q '^exit_launch: done$' <<<"$out" || fail "output lost: $out"
unset LD_LIBRARY_PATH

# (b) PoCL: the variant build is in flight when the program exits
bank_for "$T/poclbank" UNROLL=2
export AOE_TUNE_MODE=off TUNE_BANK_PATH="$T/poclbank"
run_n() { # runs threads
  local n=$1 threads=$2 i rc out
  for ((i = 0; i < n; i++)); do
    rc=0
    out=$(LD_PRELOAD="$HOOK" timeout 60 "$client" --threads "$threads" 2>"$T/err") || rc=$?
    [ "$rc" = 0 ] || fail "run $i ($threads threads): exit status $rc: $out $(cat "$T/err")"
    [ "$(grep -c ' ok$' <<<"$out")" = "$threads" ] && grep -q '^exit_launch: done$' <<<"$out" ||
      fail "run $i ($threads threads): output incomplete: $out"
  done
}
run_n 100 1
run_n 10 8
POCL_KERNEL_CACHE=0 run_n 5 1
echo "shim_exit: ok (fake build under way at exit; PoCL 115 runs exited cleanly)"
