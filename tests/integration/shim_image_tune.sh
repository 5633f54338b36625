#!/usr/bin/env bash
# Image kernels are captured, tuned and hit, bit-exact (issue 16): a PoCL
# program (tests/clients/image_tune.c) with rgba_blur (a CL_RGBA/UNORM_INT8
# image and a sampler argument in, a write-only image out) and r_scale (a
# CL_R/FLOAT image read through a sampler declared in the source, a buffer
# out), both launched with a NULL local size. Run 1 under `aoe run
# --offline` captures both with their image and sampler arguments; `aoe
# tune` on the spool stores their policies under the jobs' own keys; run 2
# hits both (the shim keys its launches as the jobs key theirs) and prints
# the checksum of a run without the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/image_tune"
spool="$AOE_WORK_PATH/spool"
ref=$(checksum_of "$("$client")")
[ -n "$ref" ] || fail "the client printed no checksum"
# LD_PRELOAD: aoe run appends the shim (tests/integration/asan/run.sh)
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- "$client" 2>"$T/err1") ||
  fail "run 1 failed: $out $(cat "$T/err1")"
[ "$(checksum_of "$out")" = "$ref" ] || fail "run 1 output differs: $out, want $ref"
# the spool: one job per kernel, its image and sampler arguments described
# as OpenCL describes them, named by the key the shim computed (the jobs'
# own "key" field)
got=$("$PY" - "$spool" <<'PY'
import base64, glob, json, os, sys
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.job"))):
    j = json.load(open(f))
    assert os.path.basename(f) == j["key"] + ".job", (f, j["key"])
    args = []
    for a in j["args"]:
        if a["kind"] == "image":
            im = a["image"]
            assert a["size"] == im["width"] * im["height"] * im["pixel_bytes"], a
            data = base64.b64decode(a.get("data_b64", ""))
            filled = "none" if not data else "zeros" if not any(data) else "pixels"
            args.append("image %x/%x %dx%d %s %s" % (im["order"], im["data_type"], im["width"],
                        im["height"], a["type"], filled))
        elif a["kind"] == "sampler":
            s = a["sampler"]
            args.append("sampler %d/%x/%x" % (s["normalized"], s["addressing"], s["filter"]))
        else:
            args.append(a["kind"])
    rows.append("%s: %s" % (j["program"]["entry"], ", ".join(args)))
print("; ".join(sorted(rows)))
PY
)
# r_scale's input was written by clEnqueueWriteImage, rgba_blur's by
# CL_MEM_COPY_HOST_PTR; its output was never written: zeros
want="r_scale: image 10b0/10de 64x48 f32 pixels, buffer, scalar; rgba_blur: image 10b5/10d2 64x48 bytes pixels, sampler 0/1131/1140, image 10b5/10d2 64x48 bytes zeros"
[ "$got" = "$want" ] || fail "spool jobs: $got, want $want"
"$AOE" tune --spool "$spool" >"$T/tune.out" 2>"$T/tune.err" || fail "aoe tune failed: $(cat "$T/tune.err")"
grep -q ' 2 tuned, 0 failed,' "$T/tune.err" || fail "aoe tune's spool line: $(cat "$T/tune.err")"
# run 2: bank only; both kernels hit the policies stored under the jobs' keys
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --repeat 2 2>"$T/err2") ||
  fail "run 2 failed: $out $(cat "$T/err2")"
[ "$(checksum_of "$out")" = "$ref" ] || fail "tuned run output differs: $out, want $ref"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 2 ] || fail "not 2 hits: $(cat "$r")"
got=$(json "$r" 'sorted((m["op_name"], m["tuned_launches"]) for m in r["OPAT"]["modified_operators"])')
[ "$got" = "[('r_scale', 2), ('rgba_blur', 2)]" ] || fail "tuned launches: $got: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["not_tuned"]')" = "[]" ] || fail "not_tuned: $(cat "$r")"
echo "shim_image_tune: ok"
