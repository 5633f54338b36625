#!/usr/bin/env bash
# The real-program scripts on PoCL, in small: scripts/check/silx on a subset of
# silx's OpenCL tests (same outcomes with and without the shim, jobs captured,
# none with nothing to tune) and scripts/bench/nlmeans on a tiny video (the
# learning run, tuning, paired runs, identical MD5s); their usage errors.
# python3-silx, python3-pytest and ffmpeg are in scripts/setup's package list.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
silx="$S/scripts/check/silx"
nlm="$S/scripts/bench/nlmeans"

# usage errors: one message, exit 2
for bad in "--bogus" "--timeout x" "--build"; do
  rc=0
  # shellcheck disable=SC2086 # each case is a list of words
  "$silx" $bad >"$T/out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q '^check/silx: ' "$T/out" || fail "check/silx $bad: exit $rc: $(cat "$T/out")"
done
for bad in "--bogus" "--size 3" "--pairs 0" "--build $T/none"; do
  rc=0
  # shellcheck disable=SC2086
  "$nlm" $bad >"$T/out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q '^bench/nlmeans: ' "$T/out" || fail "bench/nlmeans $bad: exit $rc: $(cat "$T/out")"
done
# (into a file first: grep -q may exit before the help is written, a SIGPIPE under pipefail)
"$silx" --help >"$T/help" && grep -q -- '--timeout S' "$T/help" || fail "check/silx --help: $(cat "$T/help")"
"$nlm" --help >"$T/help" && grep -q -- '--pairs N' "$T/help" || fail "bench/nlmeans --help: $(cat "$T/help")"

# silx: the 1-D convolution tests (32 tests, 4 operators, own local size for
# one of them: counted, not captured), twice under the shim
/usr/bin/python3 -c 'import silx, pytest' 2>/dev/null ||
  fail "python3-silx or python3-pytest is missing (scripts/setup installs them)"
"$silx" --build "$B" -k "test_convolution and 1D" --twice >"$T/silx" 2>&1 || fail "check/silx failed: $(cat "$T/silx")"
grep -q '^check/silx: OK' "$T/silx" || fail "check/silx says no OK: $(cat "$T/silx")"
plain=$(grep -E '^plain +[0-9.]+ +[0-9]+: passed' "$T/silx" | grep -o '[0-9]*: passed.*')
shim=$(grep -E '^shim +[0-9.]+ +[0-9]+: passed' "$T/silx" | grep -o '[0-9]*: passed.*')
shim2=$(grep -E '^shim2 +[0-9.]+ +[0-9]+: passed' "$T/silx" | grep -o '[0-9]*: passed.*')
[ -n "$plain" ] && [ "$plain" = "$shim" ] && [ "$plain" = "$shim2" ] ||
  fail "outcomes differ or missing: '$plain' vs '$shim' vs '$shim2'"
case $plain in "0: "* | *"passed 0 "*) fail "no test passed: $plain" ;; esac
jobs=$(grep -o '^spool: [0-9]*' "$T/silx" | grep -o '[0-9]*$')
[ "${jobs:-0}" -gt 0 ] || fail "no job captured: $(cat "$T/silx")"
grep -q "tunable, 0 nothing to tune" "$T/silx" || fail "verdict line: $(cat "$T/silx")"
grep -q "^captured again in the second run (kernel: jobs): " "$T/silx" || fail "second run: $(cat "$T/silx")"

# nlmeans: a tiny video, 2 pairs, small budgets
command -v ffmpeg >/dev/null || fail "ffmpeg is not installed (scripts/setup installs it)"
AOE_MAX_EVALS=2 AOE_TIME_LIMIT=10 "$nlm" --build "$B" --size 96x64 --frames 2 --pairs 2 >"$T/nlm" 2>&1 ||
  fail "bench/nlmeans failed: $(cat "$T/nlm")"
grep -q '^MD5 identical in all 5 runs: [0-9a-f]\{32\}$' "$T/nlm" || fail "MD5 line: $(cat "$T/nlm")"
grep -q '^ratio tuned/untuned over 2 pairs: median [0-9.]*, min [0-9.]*, max [0-9.]*$' "$T/nlm" ||
  fail "ratio line: $(cat "$T/nlm")"
[ "$(grep -c '^[12] ' "$T/nlm")" = 2 ] || fail "pair rows: $(cat "$T/nlm")"
echo "real_program_scripts: ok"
