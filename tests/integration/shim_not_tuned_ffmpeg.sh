#!/usr/bin/env bash
# Debian's ffmpeg, its nlmeans_opencl filter on PoCL, under `aoe run
# --offline`: the image kernels it launches (horiz_sum, weight_accum,
# average: image2d_t arguments, NULL local sizes) are captured with their
# images (issue 16), none is passed through as "image_or_sampler", and the
# output's MD5 is the one without the shim. ffmpeg is in scripts/setup's
# package list.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
command -v ffmpeg >/dev/null || fail "ffmpeg is not installed (scripts/setup installs it)"
ff=(ffmpeg -nostdin -hide_banner -loglevel error -init_hw_device opencl=ocl -filter_hw_device ocl
  -f lavfi -i testsrc=size=320x240:rate=5 -frames:v 5
  -vf format=yuv420p,hwupload,nlmeans_opencl,hwdownload,format=yuv420p -f md5 -)
ref=$(timeout 120 "${ff[@]}") || fail "ffmpeg without the shim failed"
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" timeout 120 "$AOE" run --offline -- "${ff[@]}" 2>"$T/err") ||
  fail "ffmpeg under aoe run failed: $(cat "$T/err")"
[ "$out" = "$ref" ] || fail "output under the shim: $out, without: $ref"
! grep -q '^not tuned (image or sampler argument)' "$T/err" ||
  fail "image kernels passed through: $(cat "$T/err")"
r=$(latest_result)
got=$(json "$r" "[e['op_name'] for e in r['OPAT']['not_tuned'] if e['reason'] == 'image_or_sampler']")
[ "$got" = "[]" ] || fail "result file not_tuned: $got"
got=$("$PY" - "$AOE_WORK_PATH/spool" <<'PY'
import glob, json, os, sys
names = set()
for f in glob.glob(os.path.join(sys.argv[1], "*.job")):
    j = json.load(open(f))
    if any(a["kind"] == "image" for a in j["args"]):
        names.add(j["program"]["entry"])
print(sorted(names))
PY
)
[ "$got" = "['average', 'horiz_sum', 'weight_accum']" ] || fail "image kernels captured: $got"
echo "shim_not_tuned_ffmpeg: ok"
