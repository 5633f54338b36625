#!/usr/bin/env bash
# The GEMM executor on a cuBLAS-path job (the program called cublasGemmEx or
# its strided batched form; jobs/gemm.h path "blas"), on the test doubles.
# Its default is cuBLAS' own call (fake: the catalogue's cublas_default
# algorithm), measured with the same events and verified outputs as every
# cuBLASLt candidate: a configuration is kept only when it beats that call;
# otherwise the record is the library-default form (no parameters: the hook
# passes the call through). Cases: a cuBLASLt configuration faster than
# cuBLAS' own (kept, also batched and with device pointer mode); cuBLAS' own
# fastest; a tie, also when cuBLAS' own call costs the host more; no cuBLASLt heuristic; the heuristic's first no faster than
# cuBLAS' own (workspace 0); candidates verified against cuBLAS' own output; refusals with one
# message each (another cuBLAS version, no libcublas, a cuBLAS path naming
# cuBLASLt).
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
if [ ! -e "$B/fakecuda/libcuda.so.1" ]; then
  echo "gemm_tune_blas: skipped: no $B/fakecuda/libcuda.so.1 (configured without CUDA headers)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "gemm_tune_blas: $*" >&2; exit 1; }
unset AOE_CUBLAS_LIB_DIR FAKECUDA_NAME FAKECUDA_SMS FAKECUDA_CC FAKECUDA_DRIVER FAKECUDA_MEM_BYTES
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakecublas FAKECUBLAS_CATALOGUE=$S/tests/data/gemm_catalogue.json
FP='cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90'
job() { # job FILE WORKSPACE VERSION [ALIGN] [EXTRA JSON FIELDS]
  local al=${4:-16}
  "$B/fakecuda/gemm_job_make" "$1" "$FP" "{\"path\":\"blas\",\"library\":\"cublas\",
    \"library_version\":$3,\"c_is_d\":true,\"align_a\":$al,\"align_b\":$al,\"align_c\":$al,\"align_d\":$al,
    \"a_type\":14,\"b_type\":14,\"c_type\":14,\"d_type\":14,\"compute_type\":68,\"scale_type\":0,
    \"transa\":1,\"transb\":0,\"m\":64,\"n\":64,\"k\":64,\"lda\":64,\"ldb\":64,\"ldc\":64,\"ldd\":64,
    \"workspace_limit\":$2${5:-}}"
}
field() { /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(eval(sys.argv[1]))' "$1"; }
aoe() { "$B/bin/aoe" "$@"; }
tune() { # tune NAME JOB: the JSON result in $j (exit 0 expected)
  TUNE_BANK_PATH=$T/bank_$1 aoe tune --json "$2" >"$T/$1.json" 2>"$T/$1.err" ||
    fail "$1: tuning failed: $(cat "$T/$1.err")"
  j=$(cat "$T/$1.json")
  [ "$(field 'j["ok"]' <<<"$j")" = True ] || fail "$1: not ok: $j"
}
# The record is the library-default form: no parameters, work_dim 1, no sizes.
library_default() { # library_default NAME
  [ "$(field 'j["improved"], j["policy"]["params"], j["policy"]["global"], j["bank"]' <<<"$j")" = \
    "(False, {}, [0], 'added')" ] || fail "$1: the record should be the library-default form: $j"
  TUNE_BANK_PATH=$T/bank_$1 aoe bank export >"$T/$1.export" 2>"$T/$1.export.err" || fail "$1: export: $(cat "$T/$1.export.err")"
  /usr/bin/python3 - "$T/$1.export" <<'EOF' || fail "$1: exported record: $(cat "$T/$1.export")"
import json, sys
r = json.load(open(sys.argv[1]))["records"]
assert len(r) == 1 and r[0]["runtime"] == "cublas", r
p = r[0]["policy"]
assert p.get("params", []) == [] and p["work_dim"] == 1, p
EOF
}
catalogue() { # catalogue FILE CUBLAS_DEFAULT: id 6 (the heuristic's), id 7 (256-byte aligned, 4x as fast)
  cat >"$1" <<EOF
{ "cublas_default": $2,
  "algorithms": [
    { "id": 6, "types": ["f32", "f16", "bf16"], "tiles": [18, 20], "stages": [8], "align": 4,
      "heuristic": true },
    { "id": 7, "types": ["f16", "bf16"], "align": 256, "heuristic": false,
      "speed": { "skinny": 4.0, "small": 4.0, "large": 4.0 } },
    { "id": 90, "types": ["f16", "bf16"], "heuristic": false, "planted": "off" } ] }
EOF
}

# 1. cuBLAS' own call is the catalogue's id 6 (the heuristic's first); id 30
# tile 24 is faster and is kept; the planted ones are rejected against
# cuBLAS' own output.
job "$T/big.job" 33554432 130100
tune big "$T/big.job"
[ "$(field 'j["improved"], j["policy"]["params"]["algo"], j["policy"]["params"]["tile"]' <<<"$j")" = "(True, 30, 24)" ] ||
  fail "big: the bank should hold id 30 tile 24: $j"
[ "$(field 'j["failed_by_reason"]["wrong result"]["count"], j["failed_by_reason"]["out-of-bounds write"]["count"]' <<<"$j")" = "(2, 1)" ] ||
  fail "big: planted off/nan/oob not rejected: $j"
field 'j["space"]' <<<"$j" | grep -q "^cuBLAS 130100's own call + cuBLASLt 130100: 1 heuristic + [0-9]* built" ||
  fail "big: space: $j"
[ "$(field 'j["space_size"] == 1 + int(j["space"].split(": ")[1].split()[0]) + int(j["space"].split("+ ")[2].split()[0])' <<<"$j")" = True ] ||
  fail "big: cuBLAS' own call is one candidate besides the cuBLASLt ones: $j"
TUNE_BANK_PATH=$T/bank_big aoe bank list >"$T/list" 2>&1 || fail "bank list: $(cat "$T/list")"
grep -q 'gemm .*algo=30 tile=24 ' "$T/list" || fail "bank: $(cat "$T/list")"
echo "gemm_tune_blas: a cuBLASLt configuration faster than cuBLAS' own call is kept"

# 1b. The same through cublasGemmStridedBatchedEx (batch 4) and with alpha and
# beta in device memory: cuBLAS' own output is the reference, so a wrong
# batched or device-scalar call would reject id 30 too.
job "$T/batch.job" 33554432 130100 16 ',"batch_count":4,"stride_a":4096,"stride_b":4096,"stride_c":4096,"stride_d":4096'
tune batch "$T/batch.job"
[ "$(field 'j["improved"], j["policy"]["params"]["algo"], j["failed_by_reason"]["wrong result"]["count"]' <<<"$j")" = "(True, 30, 2)" ] ||
  fail "batched: id 30 should win, only off and nan be wrong: $j"
job "$T/dev.job" 33554432 130100 16 ',"pointer_mode":1'
tune dev "$T/dev.job"
[ "$(field 'j["improved"], j["policy"]["params"]["algo"], j["failed_by_reason"]["wrong result"]["count"]' <<<"$j")" = "(True, 30, 2)" ] ||
  fail "device pointer mode: id 30 should win, only off and nan be wrong: $j"
echo "gemm_tune_blas: strided batched and device pointer mode replay cuBLAS' own call"

# 2. No workspace: id 30 is refused; the heuristic's first (id 6) is cuBLAS'
# own kernel and no faster: the record says "keep the library's own call",
# not the heuristic's configuration.
job "$T/nows.job" 0 130100
tune nows "$T/nows.job"
library_default nows
echo "gemm_tune_blas: nothing beats cuBLAS' own call: the record is the library-default form"

# 3. cuBLAS' own call (id 7) is 4x as fast as the heuristic's first; cuBLASLt
# refuses id 7 for 16-byte aligned pointers: the library-default form, and
# the default measured is cuBLAS' own (simulated: 3 us + 0.52/4 us; the
# heuristic's first would take 3.52 us).
catalogue "$T/cat_own.json" 7
export FAKECUBLAS_CATALOGUE=$T/cat_own.json
tune own "$T/big.job"
library_default own
[ "$(field 'j["default_us"] < 3.3' <<<"$j")" = True ] || fail "own: the default measured is not cuBLAS' own call: $j"
field 'j["failed_by_reason"]["refused"]["example"]' <<<"$j" | grep -q 'cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED' ||
  fail "own: id 7 should be refused by cuBLASLt for 16-byte pointers: $j"
# 3b. 256-byte aligned pointers: cuBLASLt's id 7 runs, as fast as cuBLAS' own: a tie keeps the library's call.
job "$T/a256.job" 33554432 130100 256
tune tie "$T/a256.job"
library_default tie
[ "$(field '"refused" in j["failed_by_reason"]' <<<"$j")" = False ] || fail "tie: id 7 should run: $j"
# 3b'. The same tie when cuBLAS' own call spends 2 us on the host before its
# kernel (FAKECUBLAS_HOST_US: the fake device idles that long unless work
# queued ahead keeps it busy, as a real GPU on an idle stream). The timed runs
# are led by queued device work, so the host's cost stays out of the timing:
# the tie holds, and the default measured is the kernel's 3.13 us, not 5.13.
FAKECUBLAS_HOST_US=2 tune hostcost "$T/a256.job"
library_default hostcost
[ "$(field 'j["default_us"] < 3.3' <<<"$j")" = True ] ||
  fail "hostcost: the host's cost of cuBLAS' own call was timed as the kernel's: $j"
# The lead is said with the space, sized from a timed memset (the fake's: 4 KiB a us).
field 'j["space"]' <<<"$j" | grep -q '; each timed run behind 4 memsets of 64 KiB (about 50 us queued)$' ||
  fail "hostcost: the space should name the lead: $j"
# 3c. cuBLASLt's heuristic has no answer (a cuBLASLt-path job is refused so):
# cuBLAS' own call is still measured and kept.
cat >"$T/cat_noheur.json" <<'EOF'
{ "cublas_default": 7,
  "algorithms": [ { "id": 7, "types": ["f16", "bf16"], "align": 256, "heuristic": false } ] }
EOF
FAKECUBLAS_CATALOGUE=$T/cat_noheur.json tune noheur "$T/big.job"
library_default noheur
field 'j["space"]' <<<"$j" | grep -q "^cuBLAS 130100's own call + cuBLASLt 130100: 0 heuristic + 1 built" ||
  fail "noheur: space: $j"
echo "gemm_tune_blas: cuBLAS' own call fastest, tied, or without a cuBLASLt heuristic: the record is the library-default form"

# 4. Candidates are verified against cuBLAS' own output: with cuBLAS' own
# call planted off, every correct cuBLASLt configuration differs from it.
catalogue "$T/cat_off.json" 90
FAKECUBLAS_CATALOGUE=$T/cat_off.json tune off "$T/big.job"
library_default off
[ "$(field 'j["failed_by_reason"]["wrong result"]["count"] >= 2' <<<"$j")" = True ] ||
  fail "off: the cuBLASLt configurations should differ from cuBLAS' (planted) output: $j"
export FAKECUBLAS_CATALOGUE=$S/tests/data/gemm_catalogue.json
echo "gemm_tune_blas: candidates are verified against cuBLAS' own output"

# 5. Refusals: one message each, exit 1, nothing in the bank, no crash.
refuse() { # refuse NAME PATTERN JOB [ENV...]
  local name=$1 pat=$2 file=$3; shift 3
  set +e
  env "$@" TUNE_BANK_PATH="$T/bank_$name" "$B/bin/aoe" tune "$file" >"$T/$name.out" 2>"$T/$name.err"
  local rc=$?
  set -e
  [ "$rc" = 1 ] || fail "$name: exit $rc: $(cat "$T/$name.err")"
  grep -q "$pat" "$T/$name.err" || fail "$name: expected '$pat': $(cat "$T/$name.err")"
  [ "$(grep -c 'aoe tune: ' "$T/$name.err")" = 1 ] || fail "$name: not one message: $(cat "$T/$name.err")"
  ! grep -qi 'crash\|sanitizer' "$T/$name.err" "$T/$name.out" || fail "$name crashed"
  grep -q '^gemm .*FAILED' "$T/$name.out" || fail "$name: no FAILED row: $(cat "$T/$name.out")"
}
job "$T/v.job" 33554432 130000
refuse version 'captured with cublas 130000, this machine has 130100' "$T/v.job"
mkdir -m 700 "$T/lib"
cp "$B/fakecublas/libcublasLt.so.13" "$T/lib/"
refuse nolib 'cannot load libcublas.so.13' "$T/big.job" LD_LIBRARY_PATH="$B/fakecuda" AOE_CUBLAS_LIB_DIR="$T/lib"
"$B/fakecuda/gemm_job_make" "$T/lt.job" "$FP" "$(/usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["runtime_extra"]["gemm"]
g["library"] = "cublasLt"
print(json.dumps(g))' "$T/big.job")"
refuse library "a cuBLAS-path job carries cuBLAS' version (library 'cublas'), not 'cublasLt'" "$T/lt.job"
echo "gemm_tune_blas: refused with one message: cuBLAS version, no libcublas, a cuBLAS path naming cuBLASLt"
