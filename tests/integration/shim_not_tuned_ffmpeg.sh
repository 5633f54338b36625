#!/usr/bin/env bash
# Debian's ffmpeg, its nlmeans_opencl filter on PoCL, under `aoe run
# --offline`: the three image kernels it launches (horiz_sum, weight_accum,
# average) are named, with why, in the result file and on one `aoe run`
# line. ffmpeg is in scripts/setup's package list.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
command -v ffmpeg >/dev/null || fail "ffmpeg is not installed (scripts/setup installs it)"
LD_PRELOAD="${AOE_TEST_PRELOAD:-}" timeout 120 "$AOE" run --offline -- ffmpeg -nostdin -hide_banner -loglevel error \
  -init_hw_device opencl=ocl -filter_hw_device ocl -f lavfi -i testsrc=size=320x240:rate=5 \
  -frames:v 5 -vf format=yuv420p,hwupload,nlmeans_opencl,hwdownload,format=yuv420p -f null - \
  2>"$T/err" || fail "ffmpeg under aoe run failed: $(cat "$T/err")"
grep -qx 'not tuned (image or sampler argument): average, horiz_sum, weight_accum' "$T/err" ||
  fail "aoe run does not name the image kernels: $(cat "$T/err")"
r=$(latest_result)
got=$(json "$r" "sorted(e['op_name'] for e in r['OPAT']['not_tuned'] if e['reason'] == 'image_or_sampler' and e['launches'] > 0)")
[ "$got" = "['average', 'horiz_sum', 'weight_accum']" ] || fail "result file not_tuned: $got"
echo "shim_not_tuned_ffmpeg: ok"
