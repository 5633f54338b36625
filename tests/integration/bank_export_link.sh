#!/usr/bin/env bash
# `aoe bank export -o FILE` writes FILE.tmp and renames it: a FILE.tmp planted
# as a link to another file is replaced, never written through.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "bank_export_link: $*" >&2; exit 1; }
export TUNE_BANK_PATH=$T/bank
"$B/clients/transpose" --emit-job "$T/t.job" >/dev/null
/usr/bin/python3 "$S/tests/fakecl/record_for_job.py" "$T/t.job" 8 >"$T/rec.json"
"$B/bin/aoe" bank import "$T/rec.json" >/dev/null 2>&1 || fail "import failed"
echo precious >"$T/victim"
ln -s "$T/victim" "$T/out.json.tmp"
"$B/bin/aoe" bank export -o "$T/out.json" 2>"$T/err" || { cat "$T/err"; fail "export failed"; }
[ "$(cat "$T/victim")" = precious ] || fail "export wrote through the planted link"
grep -q '"records"' "$T/out.json" || fail "no export written: $(cat "$T/out.json")"
[ "$(stat -c %a "$T/out.json")" = 600 ] || fail "export is not mode 0600"
echo "ok: export never writes through a planted FILE.tmp link"
