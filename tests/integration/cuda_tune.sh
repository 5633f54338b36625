#!/usr/bin/env bash
# The CUDA kernel executor (tuner/exec_cuda*.c) on the test doubles: a
# captured NVRTC job of tests/kernels/sgemm_tiled.cu (the kernel
# etc/tunables/cuda_sgemm.json declares: TS x WPT) tuned by `aoe` on the fake
# libcuda.so.1 and the fake NVRTC; the fake kernel (tests/fakecuda/fcu_sgemm.c)
# runs the tiled algorithm on the CPU and advances the simulated event clock
# by a cost model whose optimum is TS=32 WPT=4. The bank gets that optimum;
# the planted variants are rejected: TS=8 WPT=2 as a wrong result, TS=32
# WPT=2 (an illegal address, which loses the context) as a runtime error
# after which the worker is replaced and later variants are still measured,
# WPT=8 (an #error in the source) as build failed. A job whose NVRTC library
# is missing with no other on the machine: one "no NVRTC library" message,
# exit status 1. A CUDA kernel no declaration names: nothing to tune (exit 0).
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
if [ ! -e "$B/fakecuda/libcuda.so.1" ] || [ ! -e "$B/fakenvrtc/libnvrtc.so.13" ]; then
  echo "cuda_tune: skipped: no fake libcuda.so.1 / libnvrtc.so.13 (configured without CUDA headers)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "cuda_tune: $*" >&2; exit 1; }
unset FAKECUDA_NAME FAKECUDA_SMS FAKECUDA_CC FAKECUDA_DRIVER FAKECUDA_MEM_BYTES AOE_AUTO_DEFINES AOE_TUNABLES
export FAKECUDA_L2_BYTES=1048576 # the flush writes twice this before every timed run
export LD_LIBRARY_PATH=$B/fakecuda
# the fake kernels must be visible to the fake driver's dlsym(RTLD_DEFAULT),
# after the sanitizer runtime when there is one (tests/integration/asan/run.sh)
KERNELS="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$B/fakecuda/libfakecuda_kernels.so"
FP='cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90'
M=128 N=128 K=64
# the executor loads a job's NVRTC only from where no one else may write: a
# private copy, whatever the build tree's permissions
mkdir -m 700 "$T/nvrtc"
cp "$B/fakenvrtc/libnvrtc.so.13" "$T/nvrtc/"
NVRTC=$T/nvrtc/libnvrtc.so.13
sgemm() { # sgemm FILE NVRTC_LIBRARY
  "$B/fakecuda/cuda_job_make" "$1" "$FP" "{\"source_file\": \"$S/tests/kernels/sgemm_tiled.cu\",
    \"kernel\": \"sgemm_tiled\", \"options\": [\"-arch=sm_80\", \"--std=c++17\"],
    \"grid\": [$((N / 16)), $((M / 16))], \"block\": [16, 16], \"nvrtc_library\": \"$2\",
    \"args\": [{\"int\": $M}, {\"int\": $N}, {\"int\": $K},
      {\"f32\": $((M * K)), \"const\": true, \"seed\": 1}, {\"f32\": $((K * N)), \"const\": true, \"seed\": 2},
      {\"f32\": $((M * N)), \"zero\": true}]}"
}
field() { /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(eval(sys.argv[1]))' "$1"; }
aoe() { LD_PRELOAD="$KERNELS" "$B/bin/aoe" "$@"; }

# 1. The optimum in the bank, the planted variants rejected, the worker replaced.
sgemm "$T/sgemm.job" "$NVRTC"
export TUNE_BANK_PATH=$T/bank1
AOE_LOG_LEVEL=debug aoe tune --json --strategy brute "$T/sgemm.job" >"$T/out.json" 2>"$T/debug" ||
  { cat "$T/debug"; fail "tuning failed"; }
j=$(cat "$T/out.json")
[ "$(field 'j["ok"], j["improved"], j["bank"]' <<<"$j")" = "(True, True, 'added')" ] || fail "not tuned: $j"
[ "$(field 'j["policy"]["params"]["TS"], j["policy"]["params"]["WPT"]' <<<"$j")" = "(32, 4)" ] ||
  fail "the bank should hold TS=32 WPT=4: $j"
# sizes in threads: global [N, M / WPT], local [TS, TS / WPT]
[ "$(field 'j["policy"]["global"], j["policy"]["local"]' <<<"$j")" = "([$N, $((M / 4))], [32, 8])" ] ||
  fail "policy sizes: $j"
[ "$(field 'j["evaluations"], j["space_size"]' <<<"$j")" = "(12, 12)" ] || fail "not every variant measured: $j"
[ "$(field 'j["failed_by_reason"]["wrong result"]["count"]' <<<"$j")" = 1 ] || fail "wrong result: $j"
field 'j["failed_by_reason"]["wrong result"]["example"]' <<<"$j" | grep -q 'args\[5\]' || fail "wrong: $j"
[ "$(field 'j["failed_by_reason"]["runtime error"]["count"]' <<<"$j")" = 1 ] || fail "fault: $j"
field 'j["failed_by_reason"]["runtime error"]["example"]' <<<"$j" |
  grep -q 'illegal address (CUDA_ERROR_ILLEGAL_ADDRESS .*the worker is replaced' || fail "fault reason: $j"
[ "$(field 'j["failed_by_reason"]["build failed"]["count"]' <<<"$j")" = 3 ] || fail "build failed: $j"
field 'j["failed_by_reason"]["build failed"]["example"]' <<<"$j" |
  grep -q '#error directive: WPT 8 needs' || fail "build failed reason: $j"
! grep -qi 'crash\|sanitizer' "$T/debug" || fail "a crash: $(cat "$T/debug")"
# brute force measures rows in order: the fault (row 9, TS=32 WPT=2) comes
# before the optimum (row 10), which a fresh worker measured
grep -q 'the worker lost its device state' "$T/debug" || fail "no replacement: $(cat "$T/debug")"
sed -n '/the worker lost its device state/,$p' "$T/debug" | grep -q '^aoe: variant 10: [0-9.]* us' ||
  fail "the optimum was not measured after the fault: $(cat "$T/debug")"
aoe bank list >"$T/list" 2>&1 || fail "bank list: $(cat "$T/list")"
grep -q 'sgemm_tiled .*TS=32 WPT=4' "$T/list" || fail "bank: $(cat "$T/list")"
echo "cuda_tune: TS=32 WPT=4 in the bank; wrong result, illegal address (worker replaced) and #error rejected"

# the job's -arch=sm_80 gave way to the device's architecture; the job loaded a CUBIN
grep -q "cuda: compiled '-arch=sm_80 --std=c++17 -DTS=32 -DWPT=4' with 4 options for sm_90: a CUBIN image" \
  "$T/debug" || fail "compile options: $(grep 'cuda: compiled' "$T/debug")"

# 2. The table for people names the failures.
TUNE_BANK_PATH=$T/bank2 aoe tune "$T/sgemm.job" >"$T/table" 2>/dev/null || fail "table run failed"
for what in 'build failed 3' 'wrong result 1' 'runtime error 1'; do # in the order met
  grep -q "^sgemm_tiled .* added .*$what" "$T/table" || fail "table: no '$what': $(cat "$T/table")"
done
echo "cuda_tune: the table lists build failed 3, wrong result 1, runtime error 1"

# 2b. A program that loaded PTX is replayed from PTX.
"$B/fakecuda/cuda_job_make" "$T/ptx.job" "$FP" "{\"source_file\": \"$S/tests/kernels/sgemm_tiled.cu\",
  \"kernel\": \"sgemm_tiled\", \"image\": \"ptx\", \"grid\": [8, 8], \"block\": [16, 16],
  \"nvrtc_library\": \"$NVRTC\",
  \"args\": [{\"int\": 128}, {\"int\": 128}, {\"int\": 64}, {\"f32\": 8192, \"const\": true, \"seed\": 1},
    {\"f32\": 8192, \"const\": true, \"seed\": 2}, {\"f32\": 16384, \"zero\": true}]}"
AOE_LOG_LEVEL=debug TUNE_BANK_PATH=$T/bank2b aoe tune --dry-run "$T/ptx.job" >"$T/ptx.out" 2>"$T/ptx.err" ||
  fail "ptx: $(cat "$T/ptx.err")"
grep -q "cuda: compiled '' with 1 options for sm_90: a PTX image" "$T/ptx.err" || fail "ptx: $(cat "$T/ptx.err")"
echo "cuda_tune: the -arch option replaced by the device's; a PTX program replayed from PTX"

# 3. No NVRTC: the job's library is gone and the loader finds no other (run
# without ld.so's cache, which would find the toolkit's). One message, exit 1.
sgemm "$T/nolib.job" "$T/gone/libnvrtc.so.13"
set +e
LD_PRELOAD="$KERNELS" TUNE_BANK_PATH=$T/bank3 /lib64/ld-linux-x86-64.so.2 --inhibit-cache \
  "$B/bin/aoe" tune "$T/nolib.job" >"$T/nolib.out" 2>"$T/nolib.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "no NVRTC: exit $rc: $(cat "$T/nolib.err")"
grep -q "aoe tune: .*cuda: no NVRTC library: tried $T/gone/libnvrtc.so.13 (no such file); libnvrtc.so.13 (" \
  "$T/nolib.err" || fail "no NVRTC: $(cat "$T/nolib.err")"
[ "$(grep -c 'aoe tune: ' "$T/nolib.err")" = 1 ] || fail "no NVRTC: not one message: $(cat "$T/nolib.err")"
grep -q '^sgemm_tiled .*FAILED' "$T/nolib.out" || fail "no NVRTC: no FAILED row: $(cat "$T/nolib.out")"
# ... and one others may replace is never loaded (a job is untrusted input)
mkdir -m 777 "$T/open"
cp "$B/fakenvrtc/libnvrtc.so.13" "$T/open/"
sgemm "$T/open.job" "$T/open/libnvrtc.so.13"
set +e
LD_PRELOAD="$KERNELS" TUNE_BANK_PATH=$T/bank3b /lib64/ld-linux-x86-64.so.2 --inhibit-cache \
  "$B/bin/aoe" tune "$T/open.job" >"$T/open.out" 2>"$T/open.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "open NVRTC: exit $rc: $(cat "$T/open.err")"
grep -q "no NVRTC library: tried $T/open/libnvrtc.so.13 (in a directory others may write)" "$T/open.err" ||
  fail "open NVRTC: $(cat "$T/open.err")"
echo "cuda_tune: no NVRTC library: one message naming what was tried, exit 1; a library others may write is never loaded"

# 4. A CUDA kernel without a declaration (auto-defines off): nothing to tune.
"$B/fakecuda/cuda_job_make" "$T/vadd.job" "$FP" "{\"source_file\": \"$S/tests/kernels/vadd.cu\",
  \"kernel\": \"vadd\", \"grid\": [4], \"block\": [256], \"nvrtc_library\": \"$NVRTC\",
  \"args\": [{\"f32\": 1024, \"zero\": true}, {\"f32\": 1024, \"const\": true, \"seed\": 3},
    {\"f32\": 1024, \"const\": true, \"seed\": 4}, {\"int\": 1024}]}"
set +e
TUNE_BANK_PATH=$T/bank4 aoe tune --json "$T/vadd.job" >"$T/vadd.json" 2>"$T/vadd.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "vadd: exit $rc (nothing to tune is not a failure): $(cat "$T/vadd.err")"
field 'j["nothing_to_tune"]' <"$T/vadd.json" | grep -qx True || fail "vadd: $(cat "$T/vadd.json")"
field 'j["error"]' <"$T/vadd.json" | grep -q '^nothing to tune for kernel vadd: no tunables declaration matches it' ||
  fail "vadd: $(cat "$T/vadd.json")"
echo "cuda_tune: a CUDA kernel without a declaration: nothing to tune"

# 5. A launch the driver rejects (a block of 2048 threads): the job fails
# with the driver's answer, once, no crash.
"$B/fakecuda/cuda_job_make" "$T/bigblock.job" "$FP" "{\"source_file\": \"$S/tests/kernels/vadd.cu\",
  \"kernel\": \"vadd\", \"grid\": [1], \"block\": [2048], \"nvrtc_library\": \"$NVRTC\",
  \"args\": [{\"f32\": 2048, \"zero\": true}, {\"f32\": 2048, \"const\": true, \"seed\": 3},
    {\"f32\": 2048, \"const\": true, \"seed\": 4}, {\"int\": 2048}]}"
set +e
TUNE_BANK_PATH=$T/bank5 aoe tune "$T/bigblock.job" >"$T/bigblock.out" 2>"$T/bigblock.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "block 2048: exit $rc: $(cat "$T/bigblock.err")"
grep -q 'aoe tune: .*the default policy: running the kernel: cuLaunchKernel: CUDA_ERROR_INVALID_VALUE' \
  "$T/bigblock.err" || fail "block 2048: $(cat "$T/bigblock.err")"
! grep -qi 'crash\|sanitizer' "$T/bigblock.err" "$T/bigblock.out" || fail "block 2048 crashed"
echo "cuda_tune: a launch the driver refuses fails the job with the driver's answer"
