# Shared by tests/integration/shim_*.sh (sourced; not a test itself).
# Every test gets a fresh bank and work directory, small tuning budgets, and
# a quick poll so results arrive while the program runs. The background tuner
# uses the timings it gets even when starved of CPU (AOE_WAIT_FOR_CPU=False):
# the suite runs two tests at a time on two cores, and the other test's
# threads starve an idle-priority tuner on PoCL for tens of seconds, which
# would put these tests' jobs back for later. tune_starved and the demo
# (scripts/test's last step) run the default.
B="$AOE_BUILD_DIR"
S="$AOE_SOURCE_DIR"
# AOE_TEST_PRELOAD: objects preloaded before the shim (tests/integration/asan/run.sh)
HOOK="${AOE_TEST_PRELOAD:+$AOE_TEST_PRELOAD:}$B/lib/libaoe_hook.so"
AOE="$B/bin/aoe"
PY=/usr/bin/python3
T=$(mktemp -d)
cleanup() {
  # a background tuner of this test's spools must not outlive it
  for lock in "$T"/*/spool/tuner.lock "$T"/spool/tuner.lock; do
    [ -e "$lock" ] && fuser -k "$lock" >/dev/null 2>&1 || true
  done
  rm -rf "$T"
}
trap cleanup EXIT
export TUNE_BANK_PATH="$T/bank" AOE_WORK_PATH="$T/work" AOE_MAX_EVALS=6 AOE_TIME_LIMIT=20 \
  AOE_POLL_MS=50 AOE_LOG_LEVEL=info PYOPENCL_COMPILER_OUTPUT=0 AOE_WAIT_FOR_CPU=False
mkdir -p "$AOE_WORK_PATH"
cd "$AOE_WORK_PATH"

fail() { echo "${0##*/}: $*" >&2; exit 1; }

# Waits (at most $2 seconds, default 90) until the spool $1 has no queued or
# running job (the tuner unlinks "<key>.running" after committing).
wait_drained() {
  local dir=$1 limit=${2:-90} i
  for ((i = 0; i < limit * 5; i++)); do
    if [ -d "$dir" ] && ! compgen -G "$dir/*.job" >/dev/null &&
      ! compgen -G "$dir/*.running" >/dev/null; then return 0; fi
    sleep 0.2
  done
  fail "spool $dir did not drain in ${limit}s: $(ls "$dir")"
}

# The newest result file in $AOE_WORK_PATH (or $1).
latest_result() { ls -t "${1:-$AOE_WORK_PATH}"/aoe_result_opat_*.json 2>/dev/null | head -1; }

# Evaluates a Python expression over the JSON file $1 bound to `r`.
json() { "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# For tests whose runs (or processes) must share one operator: every run builds
# pyopencl programs from source. With pyopencl's binary cache a cold first run
# builds from source and later runs from the cached binary, which the shim
# keys by its own hash (docs/design.md), so the outcome would depend on the
# cache's state.
pyopencl_from_source() { export PYOPENCL_NO_CACHE=1; }
checksum_of() { grep -o 'checksum=[0-9a-f]*' <<<"$1" || true; }

# The allocator that fails on purpose (tests/failalloc) in $FAIL. A sanitizer
# build has none (its runtime owns malloc): the test $1 says so and is skipped.
need_failalloc() {
  FAIL=$B/tests/libaoe_failalloc.so
  [ -e "$FAIL" ] && return 0
  if grep -Eq '^AOE_(SANITIZE|TSAN):BOOL=ON$' "$B/CMakeCache.txt"; then
    echo "$1: skipped: a sanitizer build (its runtime owns malloc)"
    exit 77
  fi
  fail "no $FAIL"
}
