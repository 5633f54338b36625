#!/usr/bin/env bash
# Issue 12, item 16: a bank that does not exist yet, or that the background
# tuner is creating right now, is normal: ten first runs with a fresh bank
# (the spool inside it, as by default; online and offline alternately) print
# no bank error on the program's stderr.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
unset AOE_WORK_PATH # the default: the spool lives in the bank directory
client="$B/clients/transpose"
for i in 0 1 2 3 4 5 6 7 8 9; do
  mode=online
  [ $((i % 2)) = 1 ] && mode=offline
  TUNE_BANK_PATH="$T/fresh$i" AOE_TUNER_IDLE_EXIT=1 AOE_MAX_EVALS=2 AOE_TUNE_MODE=$mode \
    LD_PRELOAD="$HOOK" "$client" --repeat 20 >/dev/null 2>"$T/err$i"
  ! grep -E "knowledge bank|running untuned" "$T/err$i" ||
    fail "run $i ($mode, fresh bank): bank error printed: $(cat "$T/err$i")"
done
echo "shim_fresh_bank: ok (10 first runs, no bank error)"
