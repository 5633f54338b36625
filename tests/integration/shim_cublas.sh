#!/usr/bin/env bash
# The cuBLAS / cuBLASLt hooks (hooks/cublas*) on the fake libraries
# (tests/fakecublas, with their fake libcuda.so.1): a miss captures one valid
# GEMM job per key (cuBLASLt heuristic, cublasGemmEx, the strided batched and
# the fp32 forms) and starts the tuner; with a record imported for a key, the
# heuristic returns the tuned algorithm and cublasGemmEx runs through
# cublasLtMatmul with it, results correct; every refusal leaves the
# program's own choice (workspace too small, alignment, pedantic math,
# deterministic mode, an unknown library version, more than one version
# loaded, no driver, TunableOp, AOE_TUNE_GEMM=False, block-scaled
# operands), output correct, no
# crash; a CUDA 12 cuBLAS loaded RTLD_LOCAL is found and tuned; cublasLtMatmul
# with the program's own algorithm is observed; with two majors loaded, each
# caller reaches its own library.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
FAKE=$B/fakecublas:$B/fakecuda # the fake libraries and the fake driver they load
FAKELIB=$B/fakecublas
export FAKECUDA_NAME="AOE Fake GPU" # the device the fingerprints below name
if [ ! -e "$FAKELIB/libcublasLt.so.13" ]; then
  # ctest counts 77 as skipped only in a build without the CUDA headers
  # (tests/CMakeLists.txt); with them a missing fake is a failure.
  echo "shim_cublas: skipped: no $FAKELIB/libcublasLt.so.13 (configured without CUDA headers)"
  exit 77
fi
unset AOE_CUBLAS_LIB_DIR FAKECUBLAS_CATALOGUE FAKECUBLAS_VERSION FAKECUBLAS_NO_DRIVER CUBLAS_WORKSPACE_CONFIG \
  PYTORCH_TUNABLEOP_ENABLED AOE_TUNE_GEMM GEMM_TORCHLIKE_OFFSET GEMM_TORCHLIKE_MATH GEMM_TORCHLIKE_DLOPEN \
  GEMM_TORCHLIKE_STREAM_LAST
client=$B/clients/gemm_torchlike
SPOOL=$AOE_WORK_PATH/spool
export AOE_TUNE_MODE=offline AOE_LOG_LEVEL=debug

# Runs the client under the shim on the fakes; its output (stdout and the
# shim's stderr) in $out; fails unless it exits 0 with four correct results.
run() {
  local rc=0
  out=$(LD_LIBRARY_PATH=$FAKE LD_PRELOAD="$HOOK" "$@" "$client" 2>&1) || rc=$?
  [ $rc = 0 ] || fail "client failed (rc $rc): $out"
  [ "$(grep -c ': ok$' <<<"$out")" = 4 ] || fail "not 4 correct results: $out"
}
has() { grep -q -- "$1" <<<"$out" || fail "no '$1' in: $out"; }
hasnt() { ! grep -q -- "$1" <<<"$out" || fail "unexpected '$1' in: $out"; }
jobs_in() { ls "$SPOOL"/*.job 2>/dev/null | wc -l; }
# The job of a path and shape: job_of lt|blas BATCH A_TYPE.
job_of() {
  "$PY" - "$SPOOL" "$@" <<'PY'
import glob, json, sys
spool, path, batch, atype = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for f in sorted(glob.glob(spool + "/*.job")):
    g = json.load(open(f))["runtime_extra"]["gemm"]
    if g["path"] == path and g["batch_count"] == batch and g["a_type"] == atype:
        print(f)
PY
}
# Imports a record for the job $1 with the configuration NAME=VALUE... .
import_record() {
  local job=$1
  shift
  "$PY" "$S/tests/fakecublas/record_for_gemm_job.py" "$job" "$@" >"$T/rec.json"
  "$AOE" bank import "$T/rec.json" >/dev/null || fail "import of a record for $job failed"
}

# 1. Miss: one valid job per key, the program's output unchanged.
run
has '^heuristic: 1 algorithm(s): id 6 tile 18 split_k 1 workspace 0$'
has '^mm ran: cublas$'
[ "$(jobs_in)" = 4 ] || fail "expected 4 jobs (Linear+bias, mm, bmm, fp32 mm): $(ls "$SPOOL")"
"$PY" - "$SPOOL" <<'PY' || fail "jobs are not the calls made"
import glob, json, sys
want = {("lt", 1, 14, 1, 0, 4), ("blas", 1, 14, 1, 0, 1), ("blas", 2, 14, 0, 0, 1), ("blas", 1, 0, 1, 0, 1)}
got = set()
for f in glob.glob(sys.argv[1] + "/*.job"):
    j = json.load(open(f))
    assert j["runtime"] == "cublas" and j["op"] == {"kind": "library_call", "name": "gemm"}, j
    assert j["fingerprint"] == "cuda|NVIDIA|AOE Fake GPU|13000|cu=132|arch=sm_90", j["fingerprint"]
    g = j["runtime_extra"]["gemm"]
    assert (g["m"], g["n"], g["k"]) == (24, 3, 40), g
    assert g["library_version"] == 130100 and g["c_is_d"], g
    assert len(j["args"]) == (5 if g["epilogue"] == 4 else 4), j["args"]
    if g["path"] == "blas":
        assert g["workspace_limit"] == 32 << 20 and g["beta_zero"], g
    else:
        assert g["workspace_limit"] == 1 << 20 and g["compute_type"] == 68, g
    if g["a_type"] == 0:
        assert g["compute_type"] == 77, g  # TF32 math mode: CUBLAS_COMPUTE_32F_FAST_TF32
    got.add((g["path"], g["batch_count"], g["a_type"], g["transa"], g["transb"], g["epilogue"]))
assert got == want, got
PY
run
hasnt 'captured'
[ "$(jobs_in)" = 4 ] || fail "a second run captured again: $(ls "$SPOOL")"
echo "shim_cublas: a miss captures one valid GEMM job per key (cuBLASLt, GemmEx, bmm, fp32), once"

# 2. Hit: the heuristic's answer and the rerouted cublasGemmEx.
lt=$(job_of lt 1 14) mm=$(job_of blas 1 14)
[ -n "$lt" ] && [ -n "$mm" ] || fail "jobs not found"
import_record "$lt" algo=6 tile=20
import_record "$mm" algo=6 tile=20 splitk=4 reduction=2
run
has '^heuristic: 1 algorithm(s): id 6 tile 20 split_k 1 workspace 0$'
has '^mm ran: cublasLt id 6 split_k 4$'
has '^bmm ran: cublas$'
has 'gemm blas bf16 TN 24x3x40: tuned algorithm id 6 (tile 20, split-K 4) verified'
res=$(latest_result)
[ "$(json "$res" 'sorted((o["op_name"], o["tuned_launches"], o["policy"]["algo"]) for o in r["OPAT"]["modified_operators"])')" = \
  "[('gemm blas bf16 TN 24x3x40', 1, 6), ('gemm lt bf16 TN 24x3x40', 1, 6)]" ] ||
  fail "result file: $(cat "$res")"
echo "shim_cublas: a hit returns the tuned algorithm; cublasGemmEx runs through cublasLtMatmul with it, correct"

# A record in the library-default form (the tuner measured cuBLAS' own call
# best): a hit that changes nothing, without a warning.
TUNE_BANK_PATH=$T/bank_ld import_record "$mm" library-default
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
run env TUNE_BANK_PATH="$T/bank_ld"
has '^mm ran: cublas$'
has "gemm blas bf16 TN 24x3x40: the library's own choice is the best known; the call passes through"
hasnt 'refused'
[ "$(json "$(latest_result)" 'r["OPAT"]["repo_summary"]["hit"]')" -ge 1 ] || fail "not a hit: $(cat "$(latest_result)")"
echo "shim_cublas: a library-default record is a hit that passes the call through"

# cublasSetStream_v2 after cublasSetWorkspace_v2 (CuPy's order) puts the
# handle back on cuBLAS' own workspace: the program's buffer is no longer
# one a rerouted call may use, so mm is another key (no workspace), a miss.
# It used to be the hit above, rerouted with the abandoned buffer.
run env GEMM_TORCHLIKE_STREAM_LAST=1
has '^mm ran: cublas$'
has 'captured gemm blas bf16 TN 24x3x40'
"$PY" - "$SPOOL" <<'PY' || fail "no mm job without workspace: $(ls "$SPOOL")"
import glob, json, sys
assert any(g["path"] == "blas" and g["a_type"] == 14 and g["batch_count"] == 1 and g["workspace_limit"] == 0
           for g in (json.load(open(f))["runtime_extra"]["gemm"] for f in glob.glob(sys.argv[1] + "/*.job")))
PY
echo "shim_cublas: cublasSetStream_v2 drops the workspace cublasSetWorkspace_v2 gave"

# 3. Refusals: the program's own choice runs, output correct.
# Block scaling of A (an FP8 recipe's scale per block): not described, so
# neither captured nor looked up (the tuner replays scalar scales only); said once.
run env GEMM_TORCHLIKE_A_SCALE_MODE=2 AOE_WORK_PATH="$T/scaled" TUNE_BANK_PATH="$T/scaled/bank"
[ "$(ls "$T"/scaled/spool/*.job | wc -l)" = 3 ] || fail "block-scaled: $(ls "$T/scaled/spool"): $out"
hasnt 'captured gemm lt'
has 'a cuBLASLt GEMM scaled by blocks or vectors (scale mode 2): such GEMMs run as the program asked, untuned'
echo "shim_cublas: a block-scaled cuBLASLt GEMM passes through, not captured"

# A record whose algorithm needs more workspace than the caller allows (id 21: 4 MiB; 1 MiB).
TUNE_BANK_PATH=$T/bank_ws import_record "$lt" algo=21
run env TUNE_BANK_PATH="$T/bank_ws"
has '^heuristic: 1 algorithm(s): id 6 tile 18 split_k 1 workspace 0$'
has 'bank algorithm for gemm lt bf16 TN 24x3x40 refused: it needs 4194304 bytes of workspace, the caller allows 1048576'
echo "shim_cublas: refused: an algorithm needing more workspace than the caller allows"

# Operands 4 bytes off 256-byte alignment: new keys; id 66 needs 16 bytes.
run env GEMM_TORCHLIKE_OFFSET=4
has 'captured gemm blas bf16 TN 24x3x40'
mm4=$("$PY" - "$SPOOL" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.job"):
    g = json.load(open(f))["runtime_extra"]["gemm"]
    if g["path"] == "blas" and g["a_type"] == 14 and g["batch_count"] == 1 and g["align_a"] == 4:
        print(f)
PY
)
[ -n "$mm4" ] || fail "no job with 4-byte aligned operands"
TUNE_BANK_PATH=$T/bank_al import_record "$mm4" algo=66
run env TUNE_BANK_PATH="$T/bank_al" GEMM_TORCHLIKE_OFFSET=4
has '^mm ran: cublas$'
has 'refused: it needs 16-byte alignment of A, the caller guarantees 4'
echo "shim_cublas: refused: an algorithm needing more alignment than the operands have"

# No reduced-precision reduction (math-mode flag): its own key (reduction
# mask COMPUTE_TYPE); a split-K algorithm reducing in place is refused.
run env GEMM_TORCHLIKE_MATH=noreduce
nr=$("$PY" - "$SPOOL" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.job"):
    g = json.load(open(f))["runtime_extra"]["gemm"]
    if g["path"] == "blas" and g["a_type"] == 14 and g["reduction_mask"] == 2:
        print(f)
PY
)
[ -n "$nr" ] || fail "no job with reduction mask 2 (COMPUTE_TYPE)"
TUNE_BANK_PATH=$T/bank_nr import_record "$nr" algo=6 splitk=4 reduction=1
run env TUNE_BANK_PATH="$T/bank_nr" GEMM_TORCHLIKE_MATH=noreduce
has '^mm ran: cublas$'
has 'split-K reduction scheme 1 is outside the caller.s mask 2'
echo "shim_cublas: refused: a reduction scheme the math mode forbids"

# cublasLtMatmul fails with the tuned algorithm (planted in the fake): the
# cuBLAS call runs instead, the program sees success.
TUNE_BANK_PATH=$T/bank_fail import_record "$mm" algo=6 tile=20 splitk=4 reduction=2
run env TUNE_BANK_PATH="$T/bank_fail" FAKECUBLAS_FAIL_TILE=20
has '^mm ran: cublas$'
has 'gemm blas bf16 TN 24x3x40: cublasLtMatmul with the tuned algorithm failed (status 13); the cuBLAS call runs instead'
echo "shim_cublas: a failing rerouted call falls back to the cuBLAS call"

# Pedantic math mode: never rerouted (the bank of step 2 has the key).
run env GEMM_TORCHLIKE_MATH=pedantic
has '^mm ran: cublas$'
has 'pedantic or emulation math mode'
echo "shim_cublas: refused: a handle in pedantic math mode"

# Each of these leaves every call alone (the records of step 2 in the bank).
# A fresh spool each: bmm and the fp32 mm are misses there, so a hook that
# acted would capture them.
n_refused=0
refused() { # refused 'MESSAGE' ENV=VALUE...
  local msg=$1
  shift
  n_refused=$((n_refused + 1))
  mkdir -p "$T/refused$n_refused"
  run env AOE_WORK_PATH="$T/refused$n_refused" "$@"
  has '^heuristic: 1 algorithm(s): id 6 tile 18 split_k 1 workspace 0$'
  has '^mm ran: cublas$'
  has "$msg"
  hasnt 'captured'
  ! compgen -G "$T/refused$n_refused/spool/*.job" >/dev/null || fail "$*: a job was captured"
  echo "shim_cublas: refused: $*"
}
refused 'CUBLAS_WORKSPACE_CONFIG=:4096:8 asks cuBLAS for deterministic results' CUBLAS_WORKSPACE_CONFIG=:4096:8
refused 'cuBLASLt version 140000 is not one AOE knows' FAKECUBLAS_VERSION=140000
has 'cuBLAS version 140000 with cuBLASLt 140000 is not a pair AOE knows'
refused 'GEMM tuning is off (AOE_TUNE_GEMM=False)' AOE_TUNE_GEMM=False
refused 'cannot identify the CUDA device (libcuda.so.1 is not loaded)' FAKECUBLAS_NO_DRIVER=1
mkdir -p "$T/other"
cp "$FAKELIB/libcublasLt.so.13" "$T/other/libcublasLt.so.12"
refused 'more than one cuBLAS version is loaded (libcublasLt.so.13 and libcublasLt.so.12)' \
  GEMM_TORCHLIKE_DLOPEN="$T/other/libcublasLt.so.12"

# AOE_TUNE_OPS filters GEMMs by operator name ("gemm lt bf16 TN 24x3x40").
printf 'gemm lt *\n' >"$T/ops"
mkdir -p "$T/filtered"
run env AOE_WORK_PATH="$T/filtered" AOE_TUNE_OPS="$T/ops" TUNE_BANK_PATH="$T/bank_filtered"
has 'captured gemm lt bf16 TN 24x3x40'
hasnt 'captured gemm blas'
[ "$(ls "$T/filtered/spool/"*.job | wc -l)" = 1 ] || fail "AOE_TUNE_OPS: $(ls "$T/filtered/spool")"
echo "shim_cublas: AOE_TUNE_OPS selects GEMMs by operator name"

# TunableOp: AOE steps aside for the cuBLASLt path only.
run env PYTORCH_TUNABLEOP_ENABLED=1
has '^heuristic: 1 algorithm(s): id 6 tile 18 split_k 1 workspace 0$'
has '^mm ran: cublasLt id 6 split_k 4$'
has "PYTORCH_TUNABLEOP_ENABLED=1: PyTorch's TunableOp tunes the cuBLASLt path, AOE steps aside there"
echo "shim_cublas: PYTORCH_TUNABLEOP_ENABLED=1: the heuristic is left to TunableOp, cublasGemmEx still rerouted"

# A CUDA 12 module (the fakes as libcublas.so.12) loaded RTLD_LOCAL, as Python
# loads a cu12 wheel's extension (gemm_module_host): its linked calls reach
# the wrappers, which found no library (they knew only .so.13) and failed
# every call, handle creation first. Now they find it, and its GEMM is
# captured as cuBLAS 12, its job naming the library's directory.
mkdir -p "$T/cu12"
out=$(LD_LIBRARY_PATH=$B/fakecublas12:$B/fakecuda AOE_WORK_PATH=$T/cu12 \
  LD_PRELOAD="$HOOK" "$B/clients/gemm_module_host" "$B/fakecublas12/libgemm_module.so" 2>&1) ||
  fail "the CUDA 12 module failed under the shim: $out"
has '^gemm_module: max relative error .*: ok$'
has 'captured gemm blas f32 TN 24x3x40 (libgemm_module.so:gemm_module_run)'
cu12job=$(ls "$T"/cu12/spool/*.job)
[ "$(json "$cu12job" 'r["runtime_extra"]["gemm"]["library_version"]')" = 120800 ] ||
  fail "the CUDA 12 job: $(cat "$cu12job")"
[ "$(json "$cu12job" 'r["runtime_extra"]["cublas_dir"]')" = "$(realpath "$B/fakecublas12")" ] ||
  fail "the CUDA 12 job does not name its library's directory: $(cat "$cu12job")"
echo "shim_cublas: a CUDA 12 cuBLAS loaded RTLD_LOCAL is found; its calls work and are captured"

# Two majors in one process: this CUDA 13 program loads the CUDA 12 module
# (a cu12 wheel's extension beside a cu13 PyTorch). The shim's entries are
# versioned as the libraries' symbols are, so each caller reaches its own
# library: the module's handle is made by its libcublas.so.12, which the
# module then asks itself (a call the shim does not wrap). Its calls used to
# go to the first library found, .so.13, whose handle its own library
# refused (a real one would misread it).
mkdir -p "$T/two"
out=$(LD_LIBRARY_PATH=$FAKE AOE_WORK_PATH=$T/two TUNE_BANK_PATH=$T/two/bank LD_PRELOAD="$HOOK" \
  GEMM_TORCHLIKE_MODULE="$B/fakecublas12/libgemm_module.so" "$client" 2>&1) ||
  fail "two cuBLAS majors in one process failed: $out"
has '^gemm_module: max relative error .*: ok$'
[ "$(grep -c ': ok$' <<<"$out")" = 5 ] || fail "not 5 correct results: $out"
syms=$(readelf --dyn-syms -W "$B/lib/libaoe_hook.so")
grep -q ' cublasSgemm_v2@libcublas.so.12$' <<<"$syms" || fail "no versioned entry for CUDA 12 callers"
echo "shim_cublas: two cuBLAS majors in one process: each caller reaches its own library"

# The other order: the CUDA 12 module runs first (the shim works with
# cuBLAS 12), then a CUDA 13 cuBLAS is loaded globally, then the module
# calls cublasGemmEx for the first time. It still reaches the shim's
# wrapper, which sees two majors and passes it to the module's library:
# every function is looked up in the first major's libraries first. It used
# to resolve to the 13 library, now first in the global scope, so the
# module's call went to its own library past the wrapper, unseen.
mkdir -p "$T/later"
out=$(LD_LIBRARY_PATH=$B/fakecuda AOE_WORK_PATH=$T/later TUNE_BANK_PATH=$T/later/bank \
  LD_PRELOAD="$HOOK" "$B/clients/gemm_module_host" "$B/fakecublas12/libgemm_module.so" \
  "$FAKELIB/libcublasLt.so.13" "$FAKELIB/libcublas.so.13" 2>&1) ||
  fail "a CUDA 13 cuBLAS loaded after the CUDA 12 module's first GEMM: $out"
has '^gemm_module: gemmex ok (status 0)$'
has 'more than one cuBLAS version is loaded (libcublasLt.so.12 and libcublasLt.so.13): every cuBLAS and cuBLASLt call passes through untuned'
echo "shim_cublas: a second major loaded later: the first major's calls still reach the wrapper"

# One tuner serves every program of the spool, in the environment of the one
# that started it: here a CUDA 13 program's (the .so.13 fakes on its path).
# It loads the CUDA 12 job's own library from the job's directory; it used to
# search by name, get no libcublasLt.so.12 and fail the job for 7 days.
LD_LIBRARY_PATH=$FAKE "$AOE" tune --spool "$T/cu12/spool" --bank "$T/bank_cu12" \
  >"$T/cu12.tune" 2>&1 || fail "aoe tune on the CUDA 12 job: $(cat "$T/cu12.tune")"
TUNE_BANK_PATH=$T/bank_cu12 "$AOE" bank list >"$T/cu12.list"
grep -q "^[0-9a-f]\{32\} *gemm " "$T/cu12.list" ||
  fail "not tuned: $(cat "$T/cu12.tune" "$T/cu12.list" "$T"/cu12/spool/*.failed.txt 2>&1)"
echo "shim_cublas: a tuner started from a CUDA 13 program tunes a CUDA 12 job with its own library"

# Online, with the library reached only through the module's RUNPATH (a
# wheel's site-packages, off the tuner's search path too): the background
# tuner loads it from the job's directory.
mkdir -p "$T/cu12on"
out=$(LD_LIBRARY_PATH=$B/fakecuda AOE_WORK_PATH=$T/cu12on AOE_TUNE_MODE=online \
  TUNE_BANK_PATH=$T/bank_cu12on LD_PRELOAD="$HOOK" "$B/clients/gemm_module_host" \
  "$B/fakecublas12/libgemm_module.so" 2>&1) || fail "the CUDA 12 module failed online: $out"
wait_drained "$T/cu12on/spool" 120
TUNE_BANK_PATH=$T/bank_cu12on "$AOE" bank list >"$T/cu12on.list"
grep -q "^[0-9a-f]\{32\} *gemm " "$T/cu12on.list" ||
  fail "not tuned: $(cat "$T/cu12on.list" "$T/cu12on/spool/tuner.log" "$T"/cu12on/spool/*.failed.txt 2>&1)"
echo "shim_cublas: the background tuner loads the cuBLAS the program loaded, from its directory"

# 4. cublasLtMatmul with the program's own algorithm: observed, not changed.
out=$(LD_LIBRARY_PATH=$FAKE LD_PRELOAD="$HOOK" "$B/clients/lt_probe" planted 6 2>&1) || fail "lt_probe: $out"
has '^planted 6: correct$'
has 'cublasLtMatmul with an algorithm the program chose itself: observed, not changed'
has 'cublasLtMatmul call(s) with an algorithm the program chose itself'
echo "shim_cublas: cublasLtMatmul with the program's own algorithm is observed and left alone"

# 5. Online: the background tuner is started for a captured GEMM job.
export AOE_TUNE_MODE=online AOE_WORK_PATH=$T/online
mkdir -p "$AOE_WORK_PATH"
run env TUNE_BANK_PATH="$T/bank_online"
has 'captured gemm lt bf16 TN 24x3x40'
wait_drained "$T/online/spool" 60
[ -s "$T/online/spool/tuner.log" ] && grep -q gemm "$T/online/spool/tuner.log" ||
  fail "no tuner took the GEMM jobs: $(ls "$T/online/spool")"
echo "shim_cublas: a captured GEMM job starts the background tuner"
