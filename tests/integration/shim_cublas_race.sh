#!/usr/bin/env bash
# Several threads call cublasGemmEx (each on its own cuBLAS handle) and the
# cuBLASLt heuristic + cublasLtMatmul (one shared cuBLASLt handle) while the
# bank's records for both keys change (imported during the run): every
# result stays correct, every call is counted once in the result file, the
# calls switch to the tuned algorithms. Run from a ThreadSanitizer build
# (scripts/test: build-tsan) it also fails on any report of TSan.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
FAKE=$B/fakecublas:$B/fakecuda # the fake libraries and the fake driver they load
FAKELIB=$B/fakecublas
if [ ! -e "$FAKELIB/libcublasLt.so.13" ]; then
  echo "shim_cublas_race: skipped: no $FAKELIB/libcublasLt.so.13 (configured without CUDA headers)"
  exit 77
fi
unset FAKECUBLAS_CATALOGUE FAKECUBLAS_VERSION FAKECUBLAS_NO_DRIVER CUBLAS_WORKSPACE_CONFIG \
  PYTORCH_TUNABLEOP_ENABLED AOE_TUNE_GEMM
client="$B/clients/gemm_race"
export LD_LIBRARY_PATH="$FAKE" AOE_LOG_LEVEL=debug TSAN_OPTIONS="halt_on_error=1 exitcode=66"

AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --threads 1 --calls 1 >/dev/null 2>"$T/err0" ||
  fail "capture run failed: $(cat "$T/err0")"
lt=$(grep -l '"path":"lt"' "$AOE_WORK_PATH"/spool/*.job) || fail "no cuBLASLt job"
mm=$(grep -l '"path":"blas"' "$AOE_WORK_PATH"/spool/*.job) || fail "no cuBLAS job"
# records 0..9 for each key: tiles 18/20, split-K 1/2 for cublasGemmEx, each better than the last
for i in $(seq 0 9); do
  tile=$((18 + 2 * (i % 2)))
  for which in lt mm; do
    job=${!which}
    extra=()
    [ $which = mm ] && extra=(splitk=$((1 + i % 2)) reduction=2)
    "$PY" "$S/tests/fakecublas/record_for_gemm_job.py" "$job" algo=6 tile=$tile "${extra[@]}" |
      "$PY" -c 'import json,sys; d=json.load(sys.stdin); d["records"][0]["tuned_us"]=1.0/(2+int(sys.argv[1])); json.dump(d,sys.stdout)' "$i" \
        >"$T/$which$i.json"
  done
done
rm -rf "$AOE_WORK_PATH/spool"
"$AOE" bank import "$T/lt0.json" >/dev/null
"$AOE" bank import "$T/mm0.json" >/dev/null

AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --threads 4 --calls 300 --wait-file "$T/done" \
  >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 9); do
  sleep 0.2 # pacing only: the poller (AOE_POLL_MS=50) sees most generations
  "$AOE" bank import "$T/lt$i.json" >/dev/null
  "$AOE" bank import "$T/mm$i.json" >/dev/null
done
sleep 0.2
touch "$T/done"
rc=0
wait "$pid" || rc=$?
out=$(cat "$T/out") err=$(cat "$T/err")
! grep -q ThreadSanitizer <<<"$err" || fail "ThreadSanitizer: $(grep -A30 ThreadSanitizer <<<"$err" | head -60)"
[ "$rc" = 0 ] || fail "client exit status $rc: $out $(tail -20 <<<"$err")"
calls=$(grep -o 'calls=[0-9]*' <<<"$out" | cut -d= -f2)
grep -q ' wrong=0$' <<<"$out" && [ "${calls:-0}" -ge 1200 ] || fail "client: $out"
res=$(latest_result)
for path in lt blas; do
  n=$(json "$res" "sum(o['launches'] for o in r['OPAT']['modified_operators'] if o['op_name'].startswith('gemm $path '))")
  t=$(json "$res" "sum(o['tuned_launches'] for o in r['OPAT']['modified_operators'] if o['op_name'].startswith('gemm $path '))")
  [ "$n" = "$calls" ] || fail "$path: $n calls counted, $calls made: $(cat "$res")"
  [ "$t" -gt 0 ] || fail "$path: no call went out tuned: $(cat "$res")"
done
rebuilt=$(grep -c 'tuned algorithm id 6 .* verified' <<<"$err" || true)
[ "$rebuilt" -ge 2 ] || fail "the algorithms were not rebuilt as the records changed: $(grep aoe: <<<"$err" | tail)"
echo "shim_cublas_race: $calls calls from 4 threads, all correct and counted; $rebuilt algorithms rebuilt as the bank changed"
