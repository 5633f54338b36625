#!/usr/bin/env bash
# (b) A pyopencl program (Debian's python3-pyopencl: libOpenCL is loaded by
# an RTLD_LOCAL dlopen of the extension module) run twice with a fresh bank:
# the second run launches the tuned work-group size and its output is
# bit-identical to a run without the shim.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=("$PY" "$S/tests/clients/pyopencl_client.py" --size 256 --checksum)
ref=$(checksum_of "$("${client[@]}" --repeat 1)")
[ -n "$ref" ] || fail "no checksum without the shim"
out=$(LD_PRELOAD="$HOOK" "${client[@]}" --repeat 1 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "first run differs: $out $(cat "$T/err")"
wait_drained "$AOE_WORK_PATH/spool"
"$AOE" bank list | grep -q blur2d || fail "no record: $(cat "$AOE_WORK_PATH/spool/tuner.log" "$AOE_WORK_PATH"/spool/*.txt 2>&1)"
out=$(LD_PRELOAD="$HOOK" "${client[@]}" --repeat 3 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "tuned run differs: $out"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "no hit: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 3 ] || fail "not tuned: $(cat "$r")"
json "$r" 'r["OPAT"]["modified_operators"][0]["call_site"]' | grep -q '^_cl' || fail "call site: $(cat "$r")"
echo "shim_pyopencl: ok"
