#!/usr/bin/env bash
# (h) A bad value in any variable: the program's output is unchanged, the
# shim prints exactly one message naming the variable, and does nothing else
# (no job, no result file). The list of variables comes from `aoe config`, so
# a variable added later is covered too.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/transpose"
ref=$(checksum_of "$("$client" --checksum)")
long=$(head -c 5000 /dev/zero | tr '\0' x)
bad_value() { # a value the variable's type rejects
  case "$1" in
    REPEAT_TUNE | AOE_AUTO_DEFINES) echo maybe ;;
    AOE_LOG_LEVEL | AOE_TUNE_MODE | AOE_STRATEGY) echo not-a-choice ;;
    AOE_PARALLEL_COMPILE | AOE_VARIANT_TIMEOUT | AOE_CAPTURE_LIMIT_MB | AOE_POLL_MS | AOE_MAX_EVALS | AOE_TIME_LIMIT) echo 12abc ;;
    *) echo "$long" ;; # paths and strings: longer than allowed
  esac
}
vars=$("$AOE" config --json | "$PY" -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin)["variables"]))')
[ -n "$vars" ] || fail "no variables from aoe config"
for v in $vars; do
  val=$(bad_value "$v")
  out=$(env "$v=$val" LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err") || fail "$v: program failed"
  [ "$(checksum_of "$out")" = "$ref" ] || fail "$v: output changed: $out"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$v: expected one message, got: $(cut -c1-200 "$T/err")"
  grep -q "^aoe: $v=" "$T/err" || grep -q "^aoe: $v is longer" "$T/err" || fail "$v: unclear message: $(cut -c1-200 "$T/err")"
done
# A tune-ops file that cannot be read is one message too.
out=$(AOE_TUNE_OPS=/nonexistent/ops LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "AOE_TUNE_OPS: output changed"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q 'AOE_TUNE_OPS' "$T/err" || fail "AOE_TUNE_OPS: $(cat "$T/err")"
[ -z "$(ls "$AOE_WORK_PATH")" ] || fail "a disabled shim left files: $(ls "$AOE_WORK_PATH")"
[ ! -e "$TUNE_BANK_PATH" ] || fail "a disabled shim created the bank"
# A work directory that cannot hold files (here a regular file; a read-only
# or full disk alike): the program runs as without the shim, and the end-of-run
# line says the result file is missing and why, not only "cannot write".
: >"$T/plain"
out=$(AOE_WORK_PATH=$T/plain LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err") ||
  fail "AOE_WORK_PATH a file: the program failed: $(cat "$T/err")"
[ "$(checksum_of "$out")" = "$ref" ] || fail "AOE_WORK_PATH a file: output changed"
grep -q "cannot write $T/plain/aoe_result_opat_[0-9_]*\.json (Not a directory; AOE_WORK_PATH" \
  "$T/err" || fail "AOE_WORK_PATH a file: no reason for the missing result file: $(cat "$T/err")"
echo "shim_bad_env: ok ($(wc -w <<<"$vars") variables; an unusable work directory said why)"
