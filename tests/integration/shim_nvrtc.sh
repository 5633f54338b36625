#!/usr/bin/env bash
# The NVRTC runtime (hooks/nvrtc*) under each way a program reaches NVRTC:
# linked (-lnvrtc: nvFuser), linked inside a module Python loads RTLD_LOCAL
# (CuPy's cython bindings), dlopen RTLD_LOCAL + dlsym (PyTorch's lazy stub)
# and Python ctypes (CuPy's pathfinder). On the
# fake NVRTC and, where the toolkit has it, the real one: output and exit
# status identical with and without the shim (compile errors and logs
# included); each compilation said at debug level; every output (cubin and
# PTX) found again by the module-loading hooks' lookup (through the test
# build of the shim), with its program's name, options, headers and name
# expressions, also after the program was destroyed (CuPy loads the module
# after that); a program compiled twice: each output under its own options;
# nothing tracked while AOE is off for a bad setting; two NVRTC versions in
# one process, each module's calls routed to its own library.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
F=$B/fakenvrtc
if [ ! -e "$F/libnvrtc.so.13" ]; then
  # ctest counts 77 as skipped only in a build without the CUDA headers
  # (tests/CMakeLists.txt); with them a missing fake is a failure.
  echo "shim_nvrtc: skipped: no $F/libnvrtc.so.13 (configured without CUDA headers)"
  exit 77
fi
PROBE="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$F/libaoe_hook_nvrtcprobe.so"
inc=$(sed -n 's/^AOE_CUDA_INCLUDE_DIR:[A-Z]*=//p' "$B/CMakeCache.txt")
REAL=$(cd "$inc/../lib64" 2>/dev/null && pwd)
libs=("$F")
[ -e "$REAL/libnvrtc.so.13" ] && libs+=("$REAL")
export AOE_TUNE_MODE=offline

# run NAME LIBDIR CLIENT [ENV...]: the client's stdout in $T/NAME.out, stderr in $T/NAME.err, status in rc
run() {
  local name=$1 lib=$2 client=$3
  shift 3
  rc=0
  # under ASan (asan/run.sh) the interpreter, which frees nothing at exit, runs without leak detection
  local asan=${ASAN_OPTIONS:-}
  case $client in ctypes | module) asan=${asan//detect_leaks=1/detect_leaks=0} ;; esac
  case $client in
    ctypes) env ASAN_OPTIONS="$asan" LD_LIBRARY_PATH="$lib" "$@" "$PY" "$S/tests/clients/nvrtc/nvrtc_ctypes.py" ;;
    module) env ASAN_OPTIONS="$asan" LD_LIBRARY_PATH="$lib" "$@" "$PY" -c 'import ctypes, os, sys
m = ctypes.CDLL(sys.argv[1], mode=os.RTLD_LOCAL | os.RTLD_NOW)
sys.exit(m.nvrtc_module_main(1, (ctypes.c_char_p * 2)(b"nvrtc_module", None)))' "$F/libnvrtc_module.so" ;;
    *) env LD_LIBRARY_PATH="$lib" "$@" "$F/nvrtc_$client" ;;
  esac >"$T/$name.out" 2>"$T/$name.err" || rc=$?
}

T1='name=tiled_gemm.cu kind=KIND source_bytes=398 options=[-DBLOCK=128 --gpu-architecture=sm_90 -std=c++17 -I/nonexistent/include -D TILE_N=32 -default-device] headers=[tile.h:123] names=[gemm_tiled->gemm_tiled &scale->_Z5scalePffj]'
T2='name=tiled_gemm_ptx.cu kind=ptx source_bytes=398 options=[-arch=compute_90 -DBLOCK=64] headers=[tile.h:123] names=[]'
R='name=recompile.cu kind=cubin source_bytes=51 options=[-DX=N -arch=sm_90] headers=[] names=[]'
tracked_exp="tracked ptx: ${T1/KIND/ptx}
tracked cubin: ${T1/KIND/cubin}
tracked ptx after destroy: ${T1/KIND/ptx}
tracked cubin after destroy: ${T1/KIND/cubin}
tracked ptx: $T2
tracked ptx after destroy: $T2
tracked cubin 1: ${R/N/1}
tracked cubin 2: ${R/N/2}
tracked cubin 1 after destroy: ${R/N/1}
tracked cubin 2 after destroy: ${R/N/2}"

for lib in "${libs[@]}"; do
  which=fake
  [ "$lib" = "$F" ] || which=real
  run "$which-plain" "$lib" linked
  [ $rc = 0 ] || fail "$which: the client failed without the shim (rc $rc): $(cat "$T/$which-plain.err")"
  grep -q '^compile: NVRTC_ERROR_COMPILATION$' "$T/$which-plain.out" || fail "$which: no compile error to compare"
  for client in linked module dlopen ctypes; do
    run "$which-$client" "$lib" "$client" LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug
    [ $rc = 0 ] || fail "$which/$client: failed under the shim (rc $rc): $(cat "$T/$which-$client.err")"
    diff "$T/$which-plain.out" "$T/$which-$client.out" >"$T/diff" ||
      fail "$which/$client: output differs under the shim: $(cat "$T/diff")"
    err=$(cat "$T/$which-$client.err")
    for want in \
      "nvrtc program tiled_gemm.cu compiled with -DBLOCK=128 --gpu-architecture=sm_90 -std=c++17 -I/nonexistent/include -D TILE_N=32 -default-device: NVRTC_SUCCESS (398 bytes of source, 1 headers, 2 name expressions)" \
      "nvrtc program tiled_gemm_ptx.cu compiled with -arch=compute_90 -DBLOCK=64: NVRTC_SUCCESS" \
      "nvrtc program broken.cu compiled with no options: NVRTC_ERROR_COMPILATION" \
      "nvrtc program bad_arch.cu compiled with -arch=sm_10: NVRTC_ERROR_INVALID_OPTION" \
      "nvrtc program tiled_gemm.cu: cubin of [0-9]* bytes tracked" \
      "nvrtc program tiled_gemm.cu: ptx of [0-9]* bytes tracked" \
      "nvrtc program tiled_gemm_ptx.cu: ptx of [0-9]* bytes tracked" \
      "nvrtc program recompile.cu compiled with -DX=1 -arch=sm_90: NVRTC_SUCCESS" \
      "nvrtc program recompile.cu compiled with -DX=2 -arch=sm_90: NVRTC_SUCCESS"; do
      grep -q -- "aoe: $want" <<<"$err" || fail "$which/$client: no '$want' in: $err"
    done
    ! grep -q 'tracked.*broken.cu\|broken.cu.*tracked' <<<"$err" || fail "$which/$client: a failed compilation's output tracked"
    ! grep -v '^aoe: nvrtc program' <<<"$err" | grep -q . || fail "$which/$client: other messages: $err"

    # The lookup the driver-side hooks make, through the test shim.
    run "$which-$client-probe" "$lib" "$client" LD_PRELOAD="$PROBE" AOE_LOG_LEVEL=debug
    [ $rc = 0 ] || fail "$which/$client: failed under the probe shim (rc $rc): $(cat "$T/$which-$client-probe.err")"
    got=$(grep 'tracked' "$T/$which-$client-probe.out" || true)
    [ "$got" = "$tracked_exp" ] || fail "$which/$client: lookups: $(diff <(echo "$tracked_exp") <(echo "$got"))"
    [ "$(grep -v 'tracked' "$T/$which-$client-probe.out")" = "$(cat "$T/$which-plain.out")" ] ||
      fail "$which/$client: output differs under the probe shim"
    n=$(grep -c 'aoe: nvrtc program \(tiled_gemm\|tiled_gemm_ptx\|recompile\).cu produced the \(cubin\|ptx\) of hash [0-9a-f]\{16\} ([0-9]* bytes)' \
      "$T/$which-$client-probe.err" || true)
    [ "$n" = 10 ] || fail "$which/$client: $n lookups said at debug level, not 10: $(cat "$T/$which-$client-probe.err")"
  done
  echo "shim_nvrtc: $which NVRTC: linked, module (RTLD_LOCAL), dlopen and ctypes programs unchanged under the shim; their 5 outputs found by the lookup, also after the program's end; a program compiled twice: each output under its own options"
done
# The ctypes client is the C one, line for line.
diff "$T/fake-plain.out" "$T/fake-ctypes.out" >/dev/null || fail "the ctypes client's output is not the C client's"

# Two NVRTC versions in one process (a CuPy for CUDA 12 beside a PyTorch for
# CUDA 13): the client built as a module against libnvrtc.so.13 and again
# against .so.12 (the fakes refuse another library's program), both loaded
# RTLD_LOCAL, in either order. Each module's calls reach its own library and
# its programs are tracked; the wrappers used to forward every linked call to
# the first library found, so the other module's programs reached a library
# that had not made them (on the real ones: a crash).
two() { # two VERSION...: each version's module run in turn, in one interpreter
  local mods=() v asan=${ASAN_OPTIONS:-}
  for v in "$@"; do
    if [ "$v" = 13 ]; then mods+=("$F/libnvrtc_module.so"); else mods+=("$B/fakenvrtc$v/libnvrtc_module.so"); fi
  done
  ASAN_OPTIONS=${asan//detect_leaks=1/detect_leaks=0} "$PY" -c 'import ctypes, os, sys
rc = 0
for path in sys.argv[1:]:
    m = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
    rc |= m.nvrtc_module_main(1, (ctypes.c_char_p * 2)(b"nvrtc_module", None))
sys.exit(rc)' "${mods[@]}"
}
for order in "13 12" "12 13"; do
  # shellcheck disable=SC2086 # the order is two words
  base=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" two $order 2>&1) || fail "two NVRTCs ($order) without the shim: $base"
  # shellcheck disable=SC2086
  out=$(LD_PRELOAD="$PROBE" two $order 2>"$T/two.err") || fail "two NVRTCs ($order) under the shim: $(cat "$T/two.err")"
  [ "$(grep -v '^tracked' <<<"$out")" = "$base" ] ||
    fail "two NVRTCs ($order): output differs under the shim: $(diff <(echo "$base") <(grep -v '^tracked' <<<"$out") | head -5) $(head -3 "$T/two.err")"
  ! grep -q 'a program of another libnvrtc' "$T/two.err" || fail "two NVRTCs ($order): $(cat "$T/two.err")"
  [ "$(grep -c '^tracked ' <<<"$out")" = 20 ] || fail "two NVRTCs ($order): not each module's 10 outputs found: $out"
done
echo "shim_nvrtc: CUDA 12's and 13's NVRTC in one process, either loaded first: each module's calls reach its own, its programs tracked"

# Quiet at the default level; AOE off (bad setting): unchanged output, nothing tracked.
run quiet "$F" dlopen LD_PRELOAD="$HOOK"
[ $rc = 0 ] && [ ! -s "$T/quiet.err" ] || fail "messages at the info level: $(cat "$T/quiet.err")"
run off "$F" linked LD_PRELOAD="$PROBE" AOE_TUNE_MODE=sometimes
[ $rc = 0 ] || fail "failed with a bad setting (rc $rc)"
[ "$(grep -c '^untracked ' "$T/off.out")" = 10 ] || fail "tracked while AOE is off: $(cat "$T/off.out")"
grep -q 'AOE is disabled for this run' "$T/off.err" || fail "no word on the bad setting: $(cat "$T/off.err")"
echo "shim_nvrtc: silent at the info level; with AOE off for a bad setting, nothing tracked, output unchanged"
