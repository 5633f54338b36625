#!/usr/bin/env bash
# Issue 12 item 1: dlsym(RTLD_NEXT / RTLD_DEFAULT, ...) and dlvsym under the
# shim give what glibc gives without it, called from the program, from a
# linked library and from a dlopen(RTLD_LOCAL) plugin (mmap, malloc, free, a
# symbol of a later library, one of the plugin's local dependency, a missing
# one, and dlerror()'s text, also after a wrapped name found in a library
# that is not the runtime, and a wrapped CUDA name no loaded library
# defines: NULL); an OpenCL name through RTLD_NEXT gets the shim's wrapper. Before the fix the first RTLD_NEXT lookup crashed.
# AOE_TEST_PRELOAD (libasan.so under tests/integration/asan) is preloaded
# first in both runs.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
src="$S/tests/clients/dlsym"
cc_lib() { cc -O1 -std=c11 -D_GNU_SOURCE -shared -fPIC -o "$T/lib$1.so" "$src/$1.c" "${@:2}"; }
cc_lib later || fail "cannot build later.so"
cc_lib linked || fail "cannot build linked.so"
cc_lib stubcl || fail "cannot build stubcl.so"
cc_lib localdep || fail "cannot build localdep.so"
cc_lib plugin -L"$T" -Wl,--no-as-needed -llocaldep -Wl,-rpath,"$T" || fail "cannot build plugin.so"
cc -O1 -std=c11 -D_GNU_SOURCE -o "$T/prog" "$src/prog.c" -L"$T" -Wl,--no-as-needed -llinked -llater \
  -Wl,-rpath,"$T" -ldl || fail "cannot build the program"
# A plugin linked against the fake libcuda (CUDA builds): RTLD_LOCAL, its
# RTLD_DEFAULT lookup of a wrapped name its libcuda defines finds it.
cudaplugin=()
if [ -e "$B/fakecuda/libcuda.so.1" ]; then
  cuda_inc=$(sed -n 's/^AOE_CUDA_INCLUDE_DIR:PATH=//p' "$B/CMakeCache.txt")
  cc_lib cudaplugin -I"$cuda_inc" -L"$B/fakecuda" -Wl,--no-as-needed -lcuda -Wl,-rpath,"$B/fakecuda" ||
    fail "cannot build cudaplugin.so"
  cudaplugin=("$T/libcudaplugin.so")
fi
run() { # preload list ("" for none); stdout to $T/out.<tag>
  local tag=$1 rc=0
  LD_PRELOAD="$2" "$T/prog" "$T/libplugin.so" "$T/libstubcl.so" "${cudaplugin[@]}" >"$T/out.$tag" \
    2>"$T/err.$tag" || rc=$?
  [ "$rc" = 0 ] || fail "$tag run exited $rc: $(cat "$T/out.$tag" "$T/err.$tag")"
}
run ref "${AOE_TEST_PRELOAD:-}"
run shim "$HOOK"
grep -q '^main next mmap -> lib' "$T/out.ref" || fail "no reference: $(cat "$T/out.ref")"
grep -q '^plugin default aoe_dlsym_local_dep -> libloc' "$T/out.ref" || fail "reference: $(cat "$T/out.ref")"
cl=clEnqueueNDRangeKernel
# A wrapped CUDA or cuBLAS name no loaded library defines, through
# RTLD_DEFAULT or dlopen(NULL) (no libcuda or libcublas loaded):
# NULL, as without the shim (it used to be the wrapper); dlerror() then
# names the shim as the object that looked, not the caller.
norm() { grep -v " $cl " "$1" | sed -E 's#\| [^ ]*: undefined symbol: (cu[A-Za-z0-9_]+)$#| OBJ: undefined symbol: \1#'; }
diff <(norm "$T/out.ref") <(norm "$T/out.shim") >"$T/diff" ||
  fail "lookups differ under the shim (< without, > with): $(cat "$T/diff")"
[ ${#cudaplugin[@]} = 0 ] || grep -q '^cudaplugin default cuLaunchKernel -> found$' "$T/out.shim" ||
  fail "a plugin's own libcuda not found through RTLD_DEFAULT: $(cat "$T/out.shim")"
grep -q "^main next $cl -> libaoe_hook.so+" "$T/out.shim" ||
  fail "OpenCL name not the shim's wrapper: $(grep $cl "$T/out.shim")"
grep -v '^aoe: ' "$T/err.shim" | grep -q . && fail "unexpected stderr: $(cat "$T/err.shim")"
echo "shim_dlsym_next: ok ($(wc -l <"$T/out.shim") lookups equal)"
