#!/usr/bin/env bash
# Issue 15: the shim tunes a declared CUDA kernel (the fake NVRTC and
# driver; client cuda_nvrtc_tune_linked, tests/tunables/cuda_tscale.json).
# A miss captures one job: runtime cuda, grid/block, the program's options
# and headers, the buffers' contents as uploaded, element types and the
# read-only flag, and a key the job's reader computes too; the undeclared
# kernel is listed as before (with AOE_AUTO_DEFINES, its source's #ifndef
# default makes it tunable); AOE_TUNE_MODE=off captures nothing; a shape
# first launched into a graph capture is never captured. A hit: a bank
# record with WPT=2 for that operator makes the shim launch the variant
# (the fake kernel sees WPT 2; the grid follows from the policy) with the
# right output (cuLaunchKernelEx without attributes too; with one, and a
# cooperative launch, pass through, listed); one without -D values launches
# the program's function at the policy's block. Output identical to a run without the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_tune_linked
if [ ! -x "$client" ]; then
  echo "shim_cuda_tune: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_LOG_LEVEL=debug
export AOE_TUNABLES=$S/tests/tunables/cuda_tscale.json
want=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$client") || fail "without the shim: $want"
[ "$want" = "tscale then vcopy: 0 1.5 1534.5, right" ] || fail "client: $want"

# A miss: one job for tscale.
rc=0
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" 2>"$T/err") || rc=$?
[ $rc = 0 ] && [ "$out" = "$want" ] || fail "under the shim (rc $rc): $out $(cat "$T/err")"
jobs=("$AOE_WORK_PATH"/spool/*.job)
[ ${#jobs[@]} = 1 ] && [ -e "${jobs[0]}" ] || fail "expected one job: ${jobs[*]} $(cat "$T/err")"
job=${jobs[0]}
"$PY" - "$job" <<'PYEOF' || fail "job fields: $(cat "$job")"
import base64, json, struct, sys
j = json.load(open(sys.argv[1]))
def want(what, got, expect):
    if got != expect:
        sys.exit("%s: %r, expected %r" % (what, got, expect))
want("runtime", j["runtime"], "cuda")
want("entry", j["program"]["entry"], "tscale")
want("program kind", j["program"]["kind"], "source")
want("options", j["program"]["options"], ["--gpu-architecture=sm_90", "-DUNUSED=7"])
want("launch", j["launch"], {"dims": 1, "grid": [8], "block": [128], "dynamic_shared_bytes": 0})
x = j["runtime_extra"]
want("headers", x["headers"], [{"name": "tscale_util.h", "source": "#define TSCALE_HEADER 1\n"}])
want("image", x["image"], "cubin")
if not x["nvrtc_library"].endswith("/libnvrtc.so.13"): sys.exit("nvrtc_library " + x["nvrtc_library"])
want("mem_flags", x["mem_flags"], [0, 1, 0, 0])
a = j["args"]
want("kinds", [e["kind"] for e in a], ["buffer", "buffer", "scalar", "scalar"])
want("types", [e["type"] for e in a], ["f32", "f32", "f32", "i32"])
want("sizes", [e["size"] for e in a], [4096, 4096, 4, 4])
data = [base64.b64decode(e["data_b64"]) for e in a]
want("out", data[0], struct.pack("<1024f", *([-1.0] * 1024)))
want("in", data[1], struct.pack("<1024f", *[i * 0.5 for i in range(1024)]))
want("a, n", (data[2], data[3]), (struct.pack("<f", 3.0), struct.pack("<i", 1024)))
PYEOF
key=$("$B/fakecuda/job_key" "$job") || fail "the job's reader refused it"
[ "$key" = "$(basename "$job" .job)" ] || fail "key $key, the shim spooled $(basename "$job")"
grep -q '"key": *"'"$key"'"' "$job" || grep -q "\"key\":\"$key\"" "$job" || fail "key field: $(grep key "$job")"
r=$(latest_result)
[ "$(json "$r" '[(o["op_name"], o["reason"], o["launches"]) for o in r["OPAT"]["not_tuned"]]')" = \
  "[('vcopy', 'no_tunables_declaration', 1)]" ] || fail "kernel list: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["launches"]')" = 2 ] || fail "tscale's launches: $(cat "$r")"
cp "$job" "$T/job.json"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*

# AOE_TUNE_MODE=off: nothing captured.
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" 2>"$T/err_off") || fail "off: $(cat "$T/err_off")"
[ "$out" = "$want" ] || fail "off: $out"
! compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "off: captured $(ls "$AOE_WORK_PATH/spool")"

# AOE_CAPTURE_LIMIT_MB=0: the buffers' sizes, no contents (synthetic data).
AOE_CAPTURE_LIMIT_MB=0 AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>"$T/err_lim" ||
  fail "limit: $(cat "$T/err_lim")"
"$PY" -c 'import json,sys
a=json.load(open(sys.argv[1]))["args"]
assert [(e["kind"], e["size"], "data_b64" in e) for e in a] == [("buffer", 4096, False), ("buffer", 4096, False), ("scalar", 4, True), ("scalar", 4, True)], a' \
  "$AOE_WORK_PATH"/spool/*.job || fail "limit: $(cat "$AOE_WORK_PATH"/spool/*.job)"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*

# AOE_AUTO_DEFINES, no declaration: the source's #ifndef WPT default makes
# both kernels tunable (two jobs, nothing listed).
out=$(AOE_TUNABLES= AOE_AUTO_DEFINES=True AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" \
  2>"$T/err_auto") || fail "auto-defines: $(cat "$T/err_auto")"
[ "$out" = "$want" ] || fail "auto-defines: $out"
[ "$(grep -h -o '"entry": *"[a-z]*"' "$AOE_WORK_PATH"/spool/*.job | sort | tr -d ' ' | tr '\n' ' ')" = \
  '"entry":"tscale" "entry":"vcopy" ' ] || fail "auto-defines: jobs $(ls "$AOE_WORK_PATH/spool")"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["not_tuned"]')" = "[]" ] || fail "auto-defines: kernel list: $(cat "$r")"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*

# A shape first launched into a graph capture: never captured (nor later).
gwant=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$client" graph)
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" graph 2>"$T/err_graph") ||
  fail "graph: $(cat "$T/err_graph")"
[ "$out" = "$gwant" ] || fail "graph: $out, want $gwant"
! compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "graph: captured $(ls "$AOE_WORK_PATH/spool")"
grep -q 'tscale: a shape first launched into a graph capture' "$T/err_graph" ||
  fail "graph: not said: $(cat "$T/err_graph")"
r=$(latest_result)
[ "$(json "$r" '[(o["op_name"], o["reason"]) for o in r["OPAT"]["not_tuned"]]')" = \
  "[('tscale', 'graph_capture')]" ] || fail "graph: kernel list: $(cat "$r")"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*

# A first launch captured (its buffers read back) while another thread
# captures a stream of its own in global mode, torch.cuda.graph's default:
# the shim's copies run in relaxed capture mode on the launch's stream. Its
# synchronous copy used to be a forbidden call there, which broke that
# thread's capture (the fake driver models the rule).
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" graph-elsewhere 2>"$T/err_ge") ||
  fail "graph-elsewhere: $(cat "$T/err_ge")"
[ "$out" = "graph-elsewhere: the other thread's capture intact; tscale ok" ] ||
  fail "graph-elsewhere: $out $(cat "$T/err_ge")"
compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "graph-elsewhere: nothing captured"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*

# record WPT THREADS BLOCK: a bank import document for the captured operator
record() {
  "$PY" - "$T/job.json" "$@" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
wpt, threads, block = (int(v) for v in sys.argv[2:5])
params = [{"name": "WPT", "value": wpt, "define": True}] if wpt else []
rec = {"fingerprint": j["fingerprint"], "key": j["key"], "runtime": "cuda", "kernel_name": "tscale",
       "policy": {"params": params, "work_dim": 1, "global": [threads], "local": [block]},
       "default_us": 2.0, "tuned_us": 1.0, "strategy": "manual", "summary": "shim_cuda_tune"}
json.dump({"format": "aoe-bank", "version": 1, "records": [rec]}, sys.stdout)
PYEOF
}

# A hit without -D values: the program's function at the policy's block (64:
# grid 16), counted as tuned launches.
record 0 1024 64 >"$T/rec_own.json"
"$AOE" bank --bank "$T/bank_own" import "$T/rec_own.json" >/dev/null || fail "bank import"
out=$(AOE_TUNE_MODE=off TUNE_BANK_PATH="$T/bank_own" LD_PRELOAD="$HOOK" "$client" 2>"$T/err_own") ||
  fail "hit (own): $(cat "$T/err_own")"
[ "$out" = "$want" ] || fail "hit (own): $out"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 2 ] ||
  fail "hit (own): tuned launches: $(cat "$r")"
rm -rf "$AOE_WORK_PATH"/aoe_result_*

# A hit: a record with WPT=2 (threads halved, same block): the variant.
record 2 512 128 >"$T/rec.json"
"$AOE" bank import "$T/rec.json" >/dev/null || fail "bank import"
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" hit 20 2>"$T/err_hit") || fail "hit: $(cat "$T/err_hit")"
case $(head -1 <<<"$out") in
"hit: wpt 2 after "*" launches, output right") ;;
*) fail "hit: the variant did not run: $out $(grep -i 'tscale\|variant\|refused' "$T/err_hit" | tail -20)" ;;
esac
[ "$(tail -n +2 <<<"$out")" = "cuLaunchKernelEx: wpt 2
cuLaunchKernelEx with an attribute: wpt 1
cuLaunchCooperativeKernel: wpt 1" ] || fail "hit: other entry points: $out"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"] > 0')" = True ] ||
  fail "hit: no tuned launch counted: $(cat "$r")"
[ "$(json "$r" '[(o["op_name"], o["reason"], o["launches"]) for o in r["OPAT"]["not_tuned"]]')" = \
  "[('tscale', 'launch_attributes', 2)]" ] || fail "hit: kernel list: $(cat "$r")"
echo "$out"
echo "shim_cuda_tune: a declared CUDA kernel captured (fields, contents, key), the undeclared one listed, nothing captured when off or first seen in a graph capture, the variant launched on a hit"
