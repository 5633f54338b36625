#!/usr/bin/env bash
# Issue 13 item 4: the shim captures job format 2 with every argument's element
# type taken from its OpenCL type name when the implementation gives argument
# info (PoCL: programs built with -cl-kernel-arg-info). The job names the
# program's entry and option list, keeps the memory flags in runtime_extra,
# and `aoe tune` reads what the shim wrote.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/gemm"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --options "-cl-kernel-arg-info  -DUNUSED=1" \
  >/dev/null 2>"$T/err" || fail "client failed: $(cat "$T/err")"
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
"$PY" - "$job" <<'PYEOF' || fail "captured job is wrong (above)"
import json, sys
j = json.load(open(sys.argv[1]))
def check(ok, what):
    if not ok:
        print("%s: %s" % (what, json.dumps({k: v for k, v in j.items() if k != "args"})[:600]))
        sys.exit(1)
check(j["format"] == 2, "format")
check(j["runtime"] == "opencl", "runtime")
check(j["op"] == {"kind": "kernel"}, "op")
p = j["program"]
check(p["kind"] == "source" and p["entry"] == "gemm_tiled", "program")
check(p["options"] == ["-cl-kernel-arg-info", "-DUNUSED=1"], "program.options")
check(j["runtime_extra"]["options_text"] == "-cl-kernel-arg-info  -DUNUSED=1", "options_text")
l = j["launch"]
check(l["dims"] == 2 and "global" in l and l["dynamic_shared_bytes"] == 0, "launch")
# gemm_tiled(const int M, const int N, const int K, const __global float *A, ..., __global float *C)
types = [(a["kind"], a.get("type")) for a in j["args"]]
check(types == [("scalar", "i32")] * 3 + [("buffer", "f32")] * 3, "types %s" % types)
flags = j["runtime_extra"]["mem_flags"]
check(len(flags) == 6 and flags[:3] == [0, 0, 0] and all(f > 0 for f in flags[3:]), "mem_flags")
PYEOF
"$AOE" tune --dry-run "$job" >"$T/out" 2>&1 || fail "aoe tune cannot read the captured job: $(cat "$T/out")"
grep -q gemm_tiled "$T/out" || fail "dry run does not name the kernel: $(cat "$T/out")"

# Without -cl-kernel-arg-info PoCL reports no types: the job says "bytes" and
# the tuner's executor learns the declared types itself (one build with that
# option), so the buffers are still verified as float32.
rm -rf "$AOE_WORK_PATH/spool"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>"$T/err" ||
  fail "client failed: $(cat "$T/err")"
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
grep -q '"type":"bytes"' "$job" || fail "expected untyped buffers without argument info"
AOE_LOG_LEVEL=debug "$AOE" tune --bank "$T/typed_bank" --max-evals 2 "$job" >"$T/out" 2>&1 ||
  fail "aoe tune failed: $(cat "$T/out")"
for a in 3 4 5; do
  grep -q "args\[$a\] verified as f32" "$T/out" || fail "args[$a] not verified as f32: $(cat "$T/out")"
done
echo "ok"
