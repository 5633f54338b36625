#!/usr/bin/env bash
# The fake NVRTC (tests/fakenvrtc): the real soname and version node, only
# names the real libnvrtc.so.13 exports; the NVRTC client's exact output on
# it (images with -D values and #ifndef defaults, lowered names, the #error
# and bad-architecture logs); and, where the toolkit has the real library,
# the same result codes, logs, lowered names and empty outputs as NVRTC's.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
F=$B/fakenvrtc
if [ ! -e "$F/libnvrtc.so.13" ]; then
  echo "fake_nvrtc: skipped: no $F/libnvrtc.so.13 (configured without CUDA headers)"
  exit 77
fi
fail() { echo "fake_nvrtc: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

readelf -d "$F/libnvrtc.so.13" | grep -q 'SONAME.*\[libnvrtc.so.13\]' || fail "soname"
ours=$(nm -D --defined-only "$F/libnvrtc.so.13" | awk '$3 ~ /^nvrtc/ {print $3}' | sort)
grep -qx 'nvrtcCompileProgram@@libnvrtc.so.13' <<<"$ours" || fail "no version node libnvrtc.so.13: $ours"
inc=$(sed -n 's/^AOE_CUDA_INCLUDE_DIR:[A-Z]*=//p' "$B/CMakeCache.txt")
real=$inc/../lib64/libnvrtc.so.13
if [ -e "$real" ]; then
  theirs=$(nm -D --defined-only "$real" | awk '$3 ~ /^nvrtc/ {print $3}' | sort)
  extra=$(comm -23 <(echo "$ours") <(echo "$theirs"))
  [ -z "$extra" ] || fail "exported names the real library does not have: $extra"
  echo "fake_nvrtc: $(wc -l <<<"$ours") exported names, all the real library's, same version node"
else
  echo "fake_nvrtc: no real $real to compare the exported names with (the toolkit has only headers)"
fi

LD_LIBRARY_PATH=$F "$F/nvrtc_linked" >"$T/fake" || fail "client failed on the fake"
hash=$(printf '%s' '#include "tile.h"
#ifndef TILE_M
#define TILE_M 16
#endif
#ifndef TILE_N
#define TILE_N 8
#endif
// __global__ void commented_out(void) {}
extern "C" __global__ void __launch_bounds__(256)
gemm_tiled(const float *__restrict__ a, const float *b, float *c, int n)
{
    if (n > TILE_M * TILE_N * BLOCK) c[0] = a[0] * b[0];
}
__global__ void scale(float *x, float s, unsigned n) { if (n) x[0] *= s; }
' | /usr/bin/python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.stdin.buffer.read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print("%016x" % h)')
rhash=$(printf '%s\n' 'extern "C" __global__ void k(int *x) { x[0] = X; }' | /usr/bin/python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.stdin.buffer.read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print("%016x" % h)')
image() { # MAGIC ARCH DEFINES...: the fake's image text of tiled_gemm
  local magic=$1 arch=$2
  shift 2
  printf '%s 1\narch %s\n' "$magic" "$arch"
  for d in "$@"; do printf 'define %s\n' "$d"; done
  printf 'kernel tile_fill\nkernel gemm_tiled\nkernel _Z5scalePffj\nhash %s\n' "$hash"
}
ptx=$(image AOEFAKEPTX sm_90 "BLOCK 128" "TILE_N 32" "TILE_K 4" "TILE_M 16")
cubin=$(image AOEFAKECUBIN sm_90 "BLOCK 128" "TILE_N 32" "TILE_K 4" "TILE_M 16")
virt=$(image AOEFAKEPTX compute_90 "BLOCK 64" "TILE_K 4" "TILE_M 16" "TILE_N 8")
exp="nvrtc 13.0
== tiled_gemm.cu
create: NVRTC_SUCCESS
name expression gemm_tiled: NVRTC_SUCCESS
name expression &scale: NVRTC_SUCCESS
compile: NVRTC_SUCCESS
log (1 bytes): 
ptx size: NVRTC_SUCCESS $(($(wc -c <<<"$ptx") + 1)), cubin size: NVRTC_SUCCESS $(($(wc -c <<<"$cubin") + 1))
get ptx: NVRTC_SUCCESS
ptx:
$ptx
get cubin: NVRTC_SUCCESS
cubin:
$cubin
lowered gemm_tiled: NVRTC_SUCCESS gemm_tiled
lowered &scale: NVRTC_SUCCESS _Z5scalePffj
destroy: NVRTC_SUCCESS
== tiled_gemm_ptx.cu
create: NVRTC_SUCCESS
compile: NVRTC_SUCCESS
log (1 bytes): 
ptx size: NVRTC_SUCCESS $(($(wc -c <<<"$virt") + 1)), cubin size: NVRTC_SUCCESS 0
get ptx: NVRTC_SUCCESS
ptx:
$virt
destroy: NVRTC_SUCCESS
== broken.cu
create: NVRTC_SUCCESS
compile: NVRTC_ERROR_COMPILATION
log (195 bytes): broken.cu(2): catastrophic error: #error directive: TILE_M must be set
  #error TILE_M must be set
   ^

1 catastrophic error detected in the compilation of \"broken.cu\".
Compilation terminated.

ptx size: NVRTC_SUCCESS 1, cubin size: NVRTC_SUCCESS 0
destroy: NVRTC_SUCCESS
== bad_arch.cu
create: NVRTC_SUCCESS
compile: NVRTC_ERROR_INVALID_OPTION
log (60 bytes): nvrtc: error: invalid value for --gpu-architecture (-arch)

ptx size: NVRTC_SUCCESS 1, cubin size: NVRTC_SUCCESS 0
destroy: NVRTC_SUCCESS
== recompile.cu
create: NVRTC_SUCCESS
compile 1: NVRTC_SUCCESS
cubin 1:
AOEFAKECUBIN 1
arch sm_90
define X 1
kernel k
hash $rhash
compile 2: NVRTC_SUCCESS
cubin 2:
AOEFAKECUBIN 1
arch sm_90
define X 2
kernel k
hash $rhash
name expression after compiling: NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
destroy: NVRTC_SUCCESS"
[ "$(cat "$T/fake")" = "$exp" ] || fail "the client's output on the fake: $(diff <(echo "$exp") "$T/fake")"
echo "fake_nvrtc: images with -D values, #ifndef defaults (a header's too) and lowered names; #error and a bad architecture fail as NVRTC's; a program compiles again with other values"

# Against the real library: everything but the images' bytes and sizes.
shape() { # the client's output with images and their sizes abstracted
  /usr/bin/python3 -c '
import re, sys
skip = False
for line in sys.stdin.read().splitlines():
    if skip:
        skip = not line.startswith("hash ")
        continue
    if re.match(r"^(ptx|cubin)( \d)?:$", line):   # a fake text image follows
        print(line[:-1] + ": IMAGE"); skip = True; continue
    line = re.sub(r"^(ptx|cubin( \d)?): \d+ bytes, fnv [0-9a-f]+$", r"\1: IMAGE", line)
    line = re.sub(r"(size: NVRTC_SUCCESS) (\d{2,}|[2-9])\b", r"\1 N", line)
    print(line)'
}
if [ -e "$real" ]; then
  LD_LIBRARY_PATH=$(dirname "$real") "$F/nvrtc_linked" >"$T/real" || fail "client failed on the real library"
  diff <(shape <"$T/real") <(shape <"$T/fake") >"$T/diff" ||
    fail "the fake differs from the real NVRTC beyond the images: $(cat "$T/diff")"
  echo "fake_nvrtc: result codes, logs, lowered names and empty outputs as the real NVRTC's ($(grep -c . "$T/real") lines compared)"
else
  echo "fake_nvrtc: no real libnvrtc.so.13 in the toolkit: not compared with it"
fi
