#!/usr/bin/env bash
# Runs the shim test tests/integration/$1.sh with the sanitizer build's shim
# preloaded after the AddressSanitizer runtime (registered by tests/CMakeLists.txt
# in the AOE_SANITIZE build only, label "shim-asan"). Fails on the test's own
# failure and on any ASan, LeakSanitizer or UBSan report from any process of
# the run (the program, its forked children, the background tuner): reports go
# to files under a log directory, which must stay empty.
# Leak detection stays on for the C clients (known leaks: lsan.supp); the
# Python interpreter (not instrumented, it frees nothing at exit) runs without it.
set -euo pipefail
name=${1:?usage: run.sh TEST_NAME}
grep -q '^AOE_SANITIZE:BOOL=ON$' "$AOE_BUILD_DIR/CMakeCache.txt" ||
  { echo "run.sh: $AOE_BUILD_DIR is not a sanitizer build" >&2; exit 1; }
asan=$(gcc -print-file-name=libasan.so)
[ -e "$asan" ] || { echo "run.sh: no libasan.so ($asan)" >&2; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
leaks=1
case $name in *pyopencl* | *ctypes*) leaks=0 ;; esac
export AOE_TEST_PRELOAD="$asan"
export ASAN_OPTIONS="detect_leaks=$leaks:halt_on_error=1:abort_on_error=0:log_path=$logs/asan"
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
rc=0
bash "$(dirname "$0")/../$name.sh" || rc=$?
if compgen -G "$logs/*" >/dev/null; then
  for f in "$logs"/*; do echo "== $f" && cat "$f"; done
  echo "run.sh: $name: sanitizer reports above" >&2
  exit 1
fi
[ "$rc" = 0 ] || { echo "run.sh: $name failed (exit $rc)" >&2; exit 1; }
echo "run.sh: $name ok under AddressSanitizer + UBSan (leak detection $leaks)"
