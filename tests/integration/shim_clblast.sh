#!/usr/bin/env bash
# Third-party program: CLBlast's clblast_test_xaxpy (package clblast-tests),
# whose launches all carry explicit local sizes and whose kernels carry their
# own -D / #define policy, passes unchanged under the shim (fresh bank): the
# same pass/skip/fail counts as without it, exit status 0, and the program's
# kernels come out exactly as they went in (no variant program is built).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
command -v clblast_test_xaxpy >/dev/null || fail "clblast-tests is not installed"
counts() { sed 's/\x1b\[[0-9;]*m//g' | grep -E 'test\(s\) (passed|skipped|failed)|Pass rate'; }
clblast_test_xaxpy -q >"$T/ref.txt" 2>&1 || fail "fails without the shim: $(tail -5 "$T/ref.txt")"
LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug clblast_test_xaxpy -q >"$T/run.txt" 2>&1 ||
  fail "fails under the shim: $(tail -5 "$T/run.txt")"
[ "$(counts <"$T/ref.txt")" = "$(counts <"$T/run.txt")" ] || {
  diff <(counts <"$T/ref.txt") <(counts <"$T/run.txt") || true
  fail "results differ under the shim"
}
counts <"$T/run.txt" | grep -q ' 0 test(s) failed' || fail "a test failed: $(counts <"$T/run.txt")"
grep -q 'variant of' "$T/run.txt" && fail "the shim rebuilt a CLBlast kernel: $(grep 'variant of' "$T/run.txt")"
r=$(latest_result)
[ -n "$r" ] || fail "no result file: the shim saw no launch"
echo "shim_clblast: ok ($(json "$r" 'r["OPAT"]["repo_summary"]["total"]') operators seen)"
