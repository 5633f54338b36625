#!/usr/bin/env bash
# Every libFuzzer harness (tests/fuzz/fuzz_*.c) still builds against the
# current sources and survives a second of fuzzing (scripts/fuzz, built at
# -O0 to compile faster; the long runs are done by hand with FUZZ_SECONDS).
set -euo pipefail
cd "$AOE_SOURCE_DIR"
out=$(FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-1} FUZZ_OPT=-O0 scripts/fuzz 2>&1) || { echo "$out" | tail -40; exit 1; }
echo "$out" | sed -n '/== fuzz summary/,$p'
n=$(echo "$out" | sed -n '/== fuzz summary/,$p' | grep -c ': ok,')
[ "$n" -eq "$(ls tests/fuzz/fuzz_*.c | wc -l)" ] || { echo "expected every harness to run, $n did"; exit 1; }
