#!/usr/bin/env bash
# Every script a user runs (scripts/, scripts/bench/, scripts/gpu/,
# scripts/check/) answers --help with its manual and exit 0, at once and
# without starting its work: `scripts/test --help` used to run the whole suite
# and `scripts/demo --help` the demo. The scripts whose arguments are
# positional refuse an unknown option (exit 2, one message) instead of
# starting a long run with it, and scripts/test and scripts/demo refuse any
# argument.
set -euo pipefail
S=${AOE_SOURCE_DIR:?}
cd "$S"
fail() { echo "scripts_help: $*" >&2; exit 1; }
n=0
for f in scripts/* scripts/bench/* scripts/gpu/* scripts/check/*; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  rc=0
  out=$(timeout 30 "$f" --help 2>&1) || rc=$?
  [ "$rc" = 0 ] || fail "$f --help: exit status $rc: $(tail -3 <<<"$out")"
  [ "$(wc -l <<<"$out")" -ge 3 ] || fail "$f --help: no manual: $out"
  grep -q '^==' <<<"$out" && fail "$f --help started its work: $(head -3 <<<"$out")"
  n=$((n + 1))
  grep -q '^aoe_no_options' "$f" || continue
  rc=0
  out=$(timeout 30 "$f" --no-such-option 2>&1) || rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "unknown option '--no-such-option'" <<<"$out" ||
    fail "$f --no-such-option: exit status $rc: $out"
done
[ "$n" -ge 20 ] || fail "only $n scripts found"
for f in scripts/test scripts/demo; do
  rc=0
  out=$(timeout 30 "$f" extra 2>&1) || rc=$?
  [ "$rc" = 2 ] && grep -q 'takes no arguments' <<<"$out" || fail "$f extra: exit status $rc: $out"
done
echo "scripts_help: $n scripts answer --help with their manual; unknown options and stray" \
  "arguments are refused before any work starts"
