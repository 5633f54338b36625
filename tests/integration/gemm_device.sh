#!/usr/bin/env bash
# Which GPU a GEMM job is tuned on, on the test doubles (two fake devices).
# One background tuner serves every program of a spool, in the environment
# of the program that started it. A job names its program's device (UUID)
# and view of the GPUs (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER) and boot:
# - a program pinned to GPU 1 (an A100 beside an H100) queues a job that
#   says so; a tuner started with CUDA_VISIBLE_DEVICES=0 tunes it through
#   the spool (it used to fail it: no device, `.failed` for 7 days), while
#   `aoe tune JOB` keeps its caller's view (no device);
# - with two alike GPUs and a program that saw both, the tuner measures on
#   the program's own GPU (the UUID), not the first;
# - a job from another boot (another machine, or before a reboot) keeps the
#   tuner's own view.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
FAKE=$B/fakecublas:$B/fakecuda
if [ ! -e "$B/fakecublas/libcublasLt.so.13" ]; then
  echo "gemm_device: skipped: no $B/fakecublas/libcublasLt.so.13 (configured without CUDA headers)"
  exit 77
fi
unset AOE_CUBLAS_LIB_DIR FAKECUBLAS_CATALOGUE FAKECUBLAS_VERSION FAKECUBLAS_NO_DRIVER CUBLAS_WORKSPACE_CONFIG \
  PYTORCH_TUNABLEOP_ENABLED AOE_TUNE_GEMM GEMM_TORCHLIKE_OFFSET GEMM_TORCHLIKE_MATH GEMM_TORCHLIKE_DLOPEN \
  GEMM_TORCHLIKE_STREAM_LAST CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER FAKECUDA_NAME FAKECUDA_NAME_1
export LD_LIBRARY_PATH=$FAKE FAKECUDA_DEVICES=2 AOE_TUNE_MODE=offline
SPOOL=$AOE_WORK_PATH/spool
UUID1=66616b65637564610000000000000001 # the fake's second device ("fakecuda", 1)
boot=$(cat /proc/sys/kernel/random/boot_id)

# 1. A100 beside H100; the program sees only GPU 1.
FAKECUDA_NAME_1="NVIDIA A100-SXM4-80GB" CUDA_VISIBLE_DEVICES=1 LD_PRELOAD="$HOOK" \
  "$B/clients/gemm_torchlike" >"$T/run.out" 2>&1 || fail "client failed: $(cat "$T/run.out")"
job=$(grep -l '"path":"lt"' "$SPOOL"/*.job | head -1)
[ -n "$job" ] || fail "no cuBLASLt job captured: $(ls "$SPOOL"; cat "$T/run.out")"
said=$(json "$job" '(r["fingerprint"], r["runtime_extra"]["device"])')
[ "$said" = "('cuda|NVIDIA|NVIDIA A100-SXM4-80GB|13000|cu=132|arch=sm_90', {'env': {'CUDA_VISIBLE_DEVICES': '1'}, 'uuid': '$UUID1', 'boot_id': '$boot'})" ] ||
  fail "the job says $said"
for f in "$SPOOL"/*.job; do [ "$f" = "$job" ] || rm "$f"; done
cp "$job" "$T/a100.job"
export FAKECUDA_NAME_1="NVIDIA A100-SXM4-80GB" CUDA_VISIBLE_DEVICES=0 AOE_LOG_LEVEL=debug
TUNE_BANK_PATH=$T/files "$AOE" tune "$T/a100.job" >"$T/files.out" 2>&1 && fail "a job file was tuned on a GPU its caller cannot see"
grep -q "the job is for device .*A100.*(CUDA_VISIBLE_DEVICES=0)" "$T/files.out" || fail "job file: $(cat "$T/files.out")"
"$AOE" tune --spool "$SPOOL" >"$T/spool.out" 2>&1 || fail "spool: $(cat "$T/spool.out")"
grep -q '1 tuned' "$T/spool.out" || fail "the A100 job was not tuned: $(cat "$T/spool.out")"
grep -q "cuda: on device 0 of 1 (CUDA_VISIBLE_DEVICES=1, the job's own GPU)" "$T/spool.out" ||
  fail "not on the program's GPU: $(cat "$T/spool.out")"
echo "gemm_device: a job of a program pinned to another GPU is tuned there through the spool"

# 2. Two alike GPUs; the program saw both and ran on GPU 1 (the job as the
# shim writes it for torch.cuda.set_device(1): its view is all GPUs).
unset FAKECUDA_NAME_1
CUDA_VISIBLE_DEVICES=1 AOE_WORK_PATH=$T/w2 LD_PRELOAD="$HOOK" "$B/clients/gemm_torchlike" \
  >"$T/run2.out" 2>&1 || fail "client failed: $(cat "$T/run2.out")"
h100=$(grep -l '"path":"lt"' "$T/w2/spool"/*.job | head -1)
[ -n "$h100" ] || fail "no H100 job: $(cat "$T/run2.out")"
requeue() { # requeue ENV_JSON BOOT_ID: the H100 job with that view and boot
  "$PY" - "$h100" "$SPOOL" "$1" "$2" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
j["runtime_extra"]["device"].update(env=json.loads(sys.argv[3]), boot_id=sys.argv[4])
j["repeat_tune"] = True
tmp = os.path.join(sys.argv[2], "x.tmp")
json.dump(j, open(tmp, "w")); os.rename(tmp, os.path.join(sys.argv[2], j["key"] + ".job"))
PY
}
requeue '{}' "$boot"
"$AOE" tune --spool "$SPOOL" >"$T/alike.out" 2>&1 || fail "alike: $(cat "$T/alike.out")"
grep -q "cuda: on device 1 of 2 (CUDA_VISIBLE_DEVICES=(unset), the job's own GPU)" "$T/alike.out" ||
  fail "not on the program's own GPU: $(cat "$T/alike.out")"
echo "gemm_device: of two alike GPUs, the job is measured on its program's"

# 3. Another boot: the tuner's own view (GPU 0 only), the first alike GPU.
requeue '{}' "00000000-0000-0000-0000-000000000000"
"$AOE" tune --spool "$SPOOL" >"$T/boot.out" 2>&1 || fail "other boot: $(cat "$T/boot.out")"
grep -q "cuda: on device 0 of 1 (CUDA_VISIBLE_DEVICES=0)" "$T/boot.out" ||
  fail "another boot's view was applied: $(cat "$T/boot.out")"
echo "gemm_device: a job from another boot keeps the tuner's view"
