#!/usr/bin/env bash
# Kernels the shim sees and does not tune are named with their reason: a
# real PoCL program (tests/clients/image_kernels.c) with an image kernel whose
# image is made from a buffer (img_buf: the shim cannot replay it), an image
# kernel (img_scale) and a buffer kernel (vec_offset) filtered by
# AOE_TUNE_OPS, and one tuned normally (vec_scale), run under `aoe run
# --offline`. The result file's OPAT.not_tuned lists the first three with
# their reason and launches, and
# `aoe run` prints one line per reason after its summary.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/image_kernels"
echo vec_scale >"$T/ops"
# LD_PRELOAD: aoe run appends the shim (tests/integration/asan/run.sh)
out=$(AOE_TUNE_OPS="$T/ops" AOE_LOG_LEVEL=debug LD_PRELOAD="${AOE_TEST_PRELOAD:-}" \
  "$AOE" run --offline -- "$client" --repeat 3 2>"$T/err") || fail "client failed: $out $(cat "$T/err")"
grep -q "image_kernels: launches=3 ok" <<<"$out" || fail "client output: $out"
r=$(latest_result)
[ -n "$r" ] || fail "no result file: $(cat "$T/err")"
nt() { json "$r" "sorted((e['op_name'], e['reason'], e['launches']) for e in r['OPAT']['not_tuned'])"; }
want="[('img_buf', 'image_or_sampler', 3), ('img_scale', 'filtered_by_tune_ops', 3), ('vec_offset', 'filtered_by_tune_ops', 3)]"
[ "$(nt)" = "$want" ] || fail "not_tuned in the result file: $(nt), want $want"
got=$(json "$r" "[e['detail'] for e in r['OPAT']['not_tuned'] if e['op_name'] == 'img_buf']")
[ "$got" = "['argument 0 is an image made from a buffer']" ] || fail "img_buf's detail: $got"
# repo_summary keeps its meaning: operators only (img_buf has none)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["total"]')" = 3 ] || fail "repo_summary: $(cat "$r")"
grep -qx 'not tuned (image or sampler argument): img_buf' "$T/err" ||
  fail "no image line from aoe run: $(cat "$T/err")"
grep -qx 'not tuned (filtered by AOE_TUNE_OPS): img_scale, vec_offset' "$T/err" ||
  fail "no AOE_TUNE_OPS line from aoe run: $(cat "$T/err")"
! grep '^not tuned' "$T/err" | grep -q vec_scale || fail "vec_scale listed: $(cat "$T/err")"
# AOE_LOG_LEVEL=debug: each logged once at first sight
[ "$(grep -c '^aoe: not tuned (image or sampler argument): img_buf' "$T/err")" = 1 ] ||
  fail "debug line for img_buf: $(cat "$T/err")"
# A kernel object created where the shim cannot see it (libOpenCL's own
# clCreateKernel) is named at its first launch.
LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- "$client" --repeat 1 --unseen >/dev/null 2>"$T/err2" ||
  fail "client --unseen failed: $(cat "$T/err2")"
r=$(latest_result)
got=$(json "$r" "[(e['reason'], e['launches']) for e in r['OPAT']['not_tuned'] if e['op_name'] == 'vec_copy']")
[ "$got" = "[('kernel_not_tracked', 1)]" ] || fail "vec_copy in not_tuned: $got: $(cat "$r")"
grep -qx 'not tuned (kernel object created outside the shim): vec_copy' "$T/err2" ||
  fail "no line for vec_copy: $(cat "$T/err2")"
echo "shim_not_tuned: ok ($(grep -c '^not tuned' "$T/err") reasons listed)"
