#!/usr/bin/env bash
# The GEMM executor (tuner/exec_cublas*.c) on the test doubles: a GEMM job
# (jobs/gemm.h, as the cublas hooks capture it) tuned by `aoe` on the fake
# libcuda.so.1 and libcublasLt.so.13. With a catalogue where a configuration
# the heuristic never offers is clearly faster (id 30, tile 24) and planted
# wrong algorithms (off, nan, out of bounds) are faster still, the bank ends
# up with the faster verified configuration and the planted ones are shown as
# rejected; when the job's workspace limit is too small for id 30 the default
# stays. Refusals, each with one clear message and no crash: another library
# version, another device, the fake device out of memory, a library directory
# others may write. The same job through a spool. A fast algorithm whose
# two runs differ in the last bit is rejected as not deterministic.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
if [ ! -e "$B/fakecuda/libcuda.so.1" ]; then
  echo "gemm_tune: skipped: no $B/fakecuda/libcuda.so.1 (configured without CUDA headers)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "gemm_tune: $*" >&2; exit 1; }
unset AOE_CUBLAS_LIB_DIR FAKECUDA_NAME FAKECUDA_SMS FAKECUDA_CC FAKECUDA_DRIVER FAKECUDA_MEM_BYTES
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakecublas FAKECUBLAS_CATALOGUE=$S/tests/data/gemm_catalogue.json
FP='cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90'
job() { # job FILE WORKSPACE VERSION [ALIGN_A [CUBLAS_DIR]]
  "$B/fakecuda/gemm_job_make" "$1" "$FP" "{\"path\":\"lt\",\"library\":\"cublasLt\",
    \"library_version\":$3,\"align_a\":${4:-16},\"a_type\":14,\"b_type\":14,\"c_type\":14,\"d_type\":14,
    \"compute_type\":68,\"scale_type\":0,\"transa\":1,\"transb\":0,\"m\":64,\"n\":64,\"k\":64,
    \"lda\":64,\"ldb\":64,\"ldc\":64,\"ldd\":64,\"workspace_limit\":$2}" ${5:+"$5"}
}
field() { /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(eval(sys.argv[1]))' "$1"; }
aoe() { "$B/bin/aoe" "$@"; }

# 1. 32 MiB of workspace: id 30 with tile 24 wins; the planted ones are rejected.
job "$T/big.job" 33554432 130100
export TUNE_BANK_PATH=$T/bank1
aoe tune --json "$T/big.job" >"$T/big.json" 2>"$T/big.err" || { cat "$T/big.err"; fail "tuning failed"; }
j=$(cat "$T/big.json")
[ "$(field 'j["ok"]' <<<"$j")" = True ] || fail "not ok: $j"
[ "$(field 'j["improved"]' <<<"$j")" = True ] || fail "no improvement: $j"
[ "$(field 'j["policy"]["params"]["algo"], j["policy"]["params"]["tile"]' <<<"$j")" = "(30, 24)" ] ||
  fail "the bank should hold id 30 tile 24: $j"
[ "$(field 'j["failed_by_reason"]["wrong result"]["count"]' <<<"$j")" = 2 ] || fail "off and nan not both rejected: $j"
[ "$(field 'j["failed_by_reason"]["out-of-bounds write"]["count"]' <<<"$j")" = 1 ] || fail "oob not rejected: $j"
field 'j["failed_by_reason"]["wrong result"]["example"]' <<<"$j" | grep -q 'args\[3\]' || fail "reason: $j"
field 'j["space"]' <<<"$j" | grep -q '^cuBLASLt 130100: 1 heuristic + [0-9]* built' || fail "space: $j"
aoe bank list >"$T/list" 2>&1 || fail "bank list: $(cat "$T/list")"
grep -q 'gemm .*algo=30 tile=24 ' "$T/list" || fail "bank: $(cat "$T/list")"
# The table for people shows the rejected variants.
TUNE_BANK_PATH=$T/bank1b aoe tune "$T/big.job" >"$T/table" 2>/dev/null || fail "table run failed"
grep -q '^gemm .* added .*wrong result 2, out-of-bounds write 1' "$T/table" || fail "table: $(cat "$T/table")"
echo "gemm_tune: 32 MiB workspace: id 30 tile 24 in the bank, planted off/nan/oob rejected"

# 2. 1 MiB of workspace: id 30 needs 2 MiB, AlgoCheck refuses it; the default stays.
job "$T/small.job" 1048576 130100
export TUNE_BANK_PATH=$T/bank2
j=$(aoe tune --json "$T/small.job" 2>/dev/null) || fail "small workspace: $j"
[ "$(field 'j["improved"], j["policy"]["params"]["algo"], j["bank"]' <<<"$j")" = "(False, 6, 'added')" ] ||
  fail "1 MiB workspace should keep the default (id 6): $j"
echo "gemm_tune: 1 MiB workspace: the faster id 30 is refused, the default algorithm is kept"


# 2b. A captured with an 8-byte aligned pointer: the executor places A at an
# address of that class, so id 30 (16-byte alignment) passes AlgoCheck (which
# sees no pointers) but the matmul refuses it, as the real library would.
job "$T/a8.job" 33554432 130100 8
export TUNE_BANK_PATH=$T/bank2b
j=$(aoe tune --json "$T/a8.job" 2>/dev/null) || fail "8-byte alignment: $j"
[ "$(field 'j["improved"], j["policy"]["params"]["algo"]' <<<"$j")" = "(False, 6)" ] ||
  fail "8-byte aligned A should keep the default (id 6): $j"
field 'j["failed_by_reason"]["refused"]["example"]' <<<"$j" | grep -q 'cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED' ||
  fail "id 30 should be refused by the matmul: $j"
echo "gemm_tune: an 8-byte aligned A is replayed 8-byte aligned: the 16-byte algorithm is refused"

# 3. Refusals: one message each, exit 1, nothing in the bank, no crash.
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
refuse version 'captured with cublasLt 130000, this machine has 130100' "$T/v.job"
job "$T/v12.job" 33554432 120900
refuse major 'cannot load libcublasLt.so.12' "$T/v12.job"
refuse device "the job is for device 'cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90', this machine has 'cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=114|arch=sm_90'" \
  "$T/big.job" FAKECUDA_SMS=114
refuse oom_workspace 'cublas: the workspace of 33554432 bytes: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY' \
  "$T/big.job" FAKECUDA_MEM_BYTES=1100000
refuse oom_buffer 'args\[0\]: allocating 8192 bytes: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY' \
  "$T/small.job" FAKECUDA_MEM_BYTES=1060000
mkdir -m 777 "$T/open"
refuse libdir 'AOE_CUBLAS_LIB_DIR=.*: writable by group or others; not used' "$T/big.job" AOE_CUBLAS_LIB_DIR="$T/open"
refuse relative 'AOE_CUBLAS_LIB_DIR=lib: not an absolute path' "$T/big.job" AOE_CUBLAS_LIB_DIR=lib
mkdir -m 700 "$T/open/lib" # private itself, but under a directory anyone can rename entries in
refuse libdir_parent 'AOE_CUBLAS_LIB_DIR=.*: refusing .*: other users can write its parent .*/open' \
  "$T/big.job" AOE_CUBLAS_LIB_DIR="$T/open/lib"
# the directory a job names (where the program's cuBLASLt lay) passes the same checks
job "$T/opendir.job" 33554432 130100 16 "$T/open"
refuse job_libdir "the program's cuBLAS directory .*/open: writable by group or others; not used" \
  "$T/opendir.job"
echo "gemm_tune: refused with one message: library version, library major, device, out of memory, library directory (and its parents, also the job's)"

# 4. AOE_CUBLAS_LIB_DIR: the library there is loaded first (a copy of the
# fake; the search path alone would not find one).
mkdir -m 700 "$T/lib"
cp "$B/fakecublas/libcublasLt.so.13" "$T/lib/"
j=$(LD_LIBRARY_PATH=$B/fakecuda AOE_CUBLAS_LIB_DIR=$T/lib TUNE_BANK_PATH=$T/bank4 aoe tune --json "$T/big.job" 2>/dev/null) ||
  fail "AOE_CUBLAS_LIB_DIR: $j"
[ "$(field 'j["policy"]["params"]["algo"]' <<<"$j")" = 30 ] || fail "AOE_CUBLAS_LIB_DIR: $j"
# the job's directory, when AOE_CUBLAS_LIB_DIR is unset; the variable wins over it
job "$T/libdir.job" 33554432 130100 16 "$T/lib"
j=$(LD_LIBRARY_PATH=$B/fakecuda TUNE_BANK_PATH=$T/bank4b aoe tune --json "$T/libdir.job" 2>/dev/null) ||
  fail "the job's cuBLAS directory: $j"
[ "$(field 'j["policy"]["params"]["algo"]' <<<"$j")" = 30 ] || fail "the job's cuBLAS directory: $j"
j=$(LD_LIBRARY_PATH=$B/fakecuda AOE_CUBLAS_LIB_DIR=$T/lib TUNE_BANK_PATH=$T/bank4c aoe tune --json \
  "$T/opendir.job" 2>/dev/null) || fail "AOE_CUBLAS_LIB_DIR over the job's directory: $j"
echo "gemm_tune: AOE_CUBLAS_LIB_DIR, else the job's directory, is searched before the system's path"

# 5. Through a spool, as the shim queues it.
SP=$T/spool
mkdir -m 700 "$SP"
key=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/big.job")
cp "$T/big.job" "$SP/$key.job"
export TUNE_BANK_PATH=$T/bank5
aoe tune --spool "$SP" >"$T/spool.out" 2>"$T/spool.err" || fail "spool: $(cat "$T/spool.err")"
grep -q '1 tuned, 0 failed' "$T/spool.err" || fail "spool: $(cat "$T/spool.err")"
[ ! -e "$SP/$key.job" ] || fail "spool job not removed"
aoe bank show "$key" >"$T/show" 2>&1 || fail "bank show: $(cat "$T/show")"
grep -q 'algo' "$T/show" && grep -q '30' "$T/show" || fail "bank show: $(cat "$T/show")"
echo "gemm_tune: a spooled GEMM job is tuned into the bank"

# 6. An algorithm whose output is within every tolerance but differs from one
# run to the next (one unit in the last place every second call, as a split-K
# reduction with atomics can): rejected as not deterministic, though fastest.
/usr/bin/python3 - "$S/tests/data/gemm_catalogue.json" >"$T/nondet.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["algorithms"] = [a for a in c["algorithms"] if a.get("planted") in (None, "none", "oob")]
for a in c["algorithms"]:
    if a.get("planted") == "oob":
        a["planted"] = "nondet"
print(json.dumps(c))
PY
export TUNE_BANK_PATH=$T/bank6
j=$(FAKECUBLAS_CATALOGUE=$T/nondet.json aoe tune --json "$T/big.job" 2>/dev/null) || fail "nondet: $j"
[ "$(field 'j["policy"]["params"]["algo"], j["policy"]["params"]["tile"]' <<<"$j")" = "(30, 24)" ] ||
  fail "the non-deterministic algorithm must not win: $j"
[ "$(field 'j["failed_by_reason"]["wrong result"]["count"]' <<<"$j")" = 1 ] || fail "nondet not rejected: $j"
field 'j["failed_by_reason"]["wrong result"]["example"]' <<<"$j" | grep -q 'two runs differ' ||
  fail "not rejected as non-deterministic: $j"
echo "gemm_tune: a non-deterministic algorithm is rejected (two runs differ)"
