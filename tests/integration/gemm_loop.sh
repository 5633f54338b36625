#!/usr/bin/env bash
# Issue 14's whole loop on the test doubles, as a user runs it: a program
# calling cuBLAS and cuBLASLt as PyTorch does (gemm_torchlike: Linear with
# bias through the cuBLASLt heuristic with a 1 MiB workspace, mm through
# cublasGemmEx, bmm through cublasGemmStridedBatchedEx, an fp32 mm under TF32)
# runs under the shim on the fake libraries and the fake driver. 1st run: every
# GEMM misses, is captured, and the background tuner (started by the shim)
# tunes it on the fakes. The catalogue has a configuration the heuristic never
# offers (id 30, tile 24: 4x the throughput, bf16/f16 only, 2 MiB workspace):
# the mm and bmm records take it; Linear with bias (1 MiB: id 30 does not fit)
# and the fp32 mm (id 30 has no f32) keep a default. 2nd run (bank only): every
# GEMM is a hit, mm and bmm are rerouted through cublasLtMatmul with id 30, and
# every result is still correct.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
if [ ! -e "$B/fakecublas/libcublasLt.so.13" ] || [ ! -e "$B/fakecuda/libcuda.so.1" ]; then
  echo "gemm_loop: skipped: no fake CUDA libraries in $B (configured without CUDA headers)"
  exit 77
fi
unset FAKECUBLAS_VERSION FAKECUBLAS_NO_DRIVER CUBLAS_WORKSPACE_CONFIG PYTORCH_TUNABLEOP_ENABLED \
  AOE_TUNE_GEMM GEMM_TORCHLIKE_OFFSET GEMM_TORCHLIKE_MATH GEMM_TORCHLIKE_DLOPEN FAKECUDA_NAME
export LD_LIBRARY_PATH=$B/fakecublas:$B/fakecuda FAKECUBLAS_CATALOGUE=$S/tests/data/gemm_catalogue.json
export AOE_MAX_EVALS=64 AOE_TIME_LIMIT=60
client=$B/clients/gemm_torchlike
run() { # mode: the client under the shim; its stdout and stderr in $out
  local rc=0
  out=$(AOE_TUNE_MODE=$1 LD_PRELOAD="$HOOK" "$client" bf16 128 128 128 2>&1) || rc=$?
  [ $rc = 0 ] || fail "$1 run failed (rc $rc): $out"
  [ "$(grep -c ': ok$' <<<"$out")" = 4 ] || fail "$1 run: not 4 correct results: $out"
}

run online
grep -q '^mm ran: cublas$' <<<"$out" || fail "1st run: mm not passed through: $out"
wait_drained "$AOE_WORK_PATH/spool" 120
[ -z "$(compgen -G "$AOE_WORK_PATH/spool/*.failed")" ] ||
  fail "a job failed: $(cat "$AOE_WORK_PATH"/spool/*.failed.txt)"
"$AOE" bank export -o "$T/bank.json" 2>"$T/err" || fail "export: $(cat "$T/err")"
"$PY" - "$T/bank.json" <<'PY' || fail "bank: $(cat "$T/bank.json") $(cat "$AOE_WORK_PATH/spool/tuner.log")"
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["runtime"] == "cublas"]
assert len(recs) == 4, "want 4 GEMM records, got %d" % len(recs)
algo = lambda r: {p["name"]: p["value"] for p in r["policy"]["params"]}
fast = [r for r in recs if algo(r).get("algo") == 30]
assert len(fast) == 2, "want id 30 for mm and bmm: %s" % [algo(r) for r in recs]
for r in fast:
    assert algo(r)["tile"] == 24 and r["tuned_us"] < r["default_us"], r
print("gemm_loop: bank:", sorted(r["kernel_name"] + " " + str(algo(r)) for r in recs))
PY

rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
run off
grep -q '^mm ran: cublasLt id 30 ' <<<"$out" || fail "2nd run: mm not rerouted with id 30: $out"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 4 ] || fail "2nd run: not 4 hits: $(cat "$r")"
echo "gemm_loop: ok (4 GEMMs captured, tuned in the background on the fakes, 4 hits, mm rerouted)"
