#!/usr/bin/env bash
# Bad input to `aoe bank`: TUNE_BANK_PATH naming a file, a directory of other
# files, garbage and truncated data.mdb, JSON with wrong types and 1 MB strings,
# usage errors. Each gives one clear message and the documented exit status,
# never a crash, and never touches the bad file.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
AOE=$B/bin/aoe
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export AOE_LOG_LEVEL=info
unset TUNE_BANK_PATH XDG_DATA_HOME

# expect STATUS NEEDLE CMD...: exit status STATUS, one stderr line containing NEEDLE
expect() {
  local want=$1 needle=$2 rc=0
  shift 2
  "$@" >"$T/out" 2>"$T/err" || rc=$?
  if [ "$rc" != "$want" ]; then
    cat "$T/err" >&2
    echo "FAIL: '$*' exited $rc, expected $want" >&2
    exit 1
  fi
  if [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qF -- "$needle" "$T/err"; then
    echo "--- stderr:" >&2
    cat "$T/err" >&2
    echo "FAIL: '$*' should print one line containing '$needle'" >&2
    exit 1
  fi
}

echo hello >"$T/afile"
TUNE_BANK_PATH=$T/afile expect 1 "is a file, not a bank directory" "$AOE" bank list
TUNE_BANK_PATH=$T/afile expect 1 "is a file" "$AOE" bank import /dev/null
expect 1 "no knowledge bank" "$AOE" bank stats --bank "$T/missing"
[ ! -e "$T/missing" ] || { echo "FAIL: a read-only command created a bank" >&2; exit 1; }

mkdir "$T/docs" && echo x >"$T/docs/notes.txt"
expect 1 "not an AOE knowledge bank" "$AOE" bank import /dev/null --bank "$T/docs"

mkdir "$T/garbage" && head -c 20000 /dev/urandom >"$T/garbage/data.mdb"
cp "$T/garbage/data.mdb" "$T/garbage.copy"
for c in list stats verify; do expect 1 "not an LMDB file" "$AOE" bank $c --bank "$T/garbage"; done
cmp -s "$T/garbage/data.mdb" "$T/garbage.copy" || { echo "FAIL: garbage data.mdb was modified" >&2; exit 1; }

# a real bank, then truncated
good='{"fingerprint":"opencl|v|d|1|cu=1","key":"%032x","kernel_name":"k","tuned_us":%d,"policy":{"work_dim":1,"global":[64],"local":[8]},"summary":"%s"}'
{
  printf '{"format":"aoe-bank","version":1,"records":['
  for i in $(seq 1 300); do printf "$good," "$i" "$i" "$(printf '%0200d' "$i")"; done
  printf "$good]}" 999 5 x
} >"$T/good.json"
"$AOE" bank import "$T/good.json" --bank "$T/bank" >/dev/null
"$AOE" bank verify --bank "$T/bank" >/dev/null
cp -r "$T/bank" "$T/trunc"
truncate -s $(($(stat -c %s "$T/trunc/data.mdb") / 2)) "$T/trunc/data.mdb"
expect 1 "truncated" "$AOE" bank list --bank "$T/trunc"
expect 1 "truncated" "$AOE" bank import "$T/good.json" --bank "$T/trunc"
head -c 100 "$T/bank/data.mdb" >"$T/short.mdb"
mkdir "$T/short" && cp "$T/short.mdb" "$T/short/data.mdb"
expect 1 "not an LMDB file" "$AOE" bank verify --bank "$T/short"

# JSON with wrong types and 1 MB strings: rejected by index, good entries kept
big=$(head -c 1048576 /dev/zero | tr '\0' A)
{
  printf '{"format":"aoe-bank","version":1,"records":['
  printf "$good," 4096 7 ok
  printf '{"fingerprint":"opencl|v|d|1|cu=1","key":"%032x","kernel_name":"%s","tuned_us":1,"policy":{"work_dim":1}},' 4097 "$big"
  printf '{"fingerprint":"%s","key":"%032x","kernel_name":"k","tuned_us":1,"policy":{"work_dim":1}},' "$big" 4098
  printf '{"fingerprint":"opencl|v|d|1|cu=1","key":"%032x","kernel_name":"k","tuned_us":"fast","policy":{"work_dim":1}},' 4099
  printf '{"fingerprint":"opencl|v|d|1|cu=1","key":12,"kernel_name":"k","tuned_us":1,"policy":[]},'
  printf '"just a string",'
  printf '{"fingerprint":"opencl|v|d|1|cu=1","key":"%032x","kernel_name":"k","tuned_us":1,"policy":{"work_dim":1,"global":["x"]}}' 4100
  printf ']}'
} >"$T/bad.json"
rc=0
"$AOE" bank import "$T/bad.json" --bank "$T/bank" >"$T/out" 2>"$T/err" || rc=$?
[ $rc -eq 1 ] || { echo "FAIL: import with rejects exited $rc" >&2; exit 1; }
[ "$(wc -l <"$T/err")" -eq 6 ] || { cat "$T/err" >&2; echo "FAIL: expected 6 reject lines" >&2; exit 1; }
for want in "records[1] rejected: kernel_name" "records[2] rejected: fingerprint" \
  "records[3] rejected: tuned_us" "records[4] rejected: key" "records[5] rejected: expected an object" \
  "records[6] rejected: policy.global[0]"; do
  grep -qF "$want" "$T/err" || { cat "$T/err" >&2; echo "FAIL: no '$want'" >&2; exit 1; }
done
grep -q "1 added" "$T/out" || { cat "$T/out" >&2; echo "FAIL: the good entry was not added" >&2; exit 1; }
"$AOE" bank show 00000000000000000000000000001000 --bank "$T/bank" --json | grep -q '"tuned_us":7' ||
  { echo "FAIL: the good entry is not in the bank" >&2; exit 1; }

echo '{"format": "aoe-bank", "records": [' >"$T/cut.json"
expect 1 "not valid JSON" "$AOE" bank import "$T/cut.json" --bank "$T/bank"
printf '\x00\xff\xfe garbage' >"$T/bin.json"
expect 1 "not valid JSON" "$AOE" bank import "$T/bin.json" --bank "$T/bank"
echo '{"records": []}' >"$T/foreign.json"
expect 1 "not an AOE bank export" "$AOE" bank import "$T/foreign.json" --bank "$T/bank"
"$AOE" bank verify --bank "$T/bank" >/dev/null || { echo "FAIL: bank damaged by bad imports" >&2; exit 1; }

# usage errors: exit 2
expect 2 "unknown option" "$AOE" bank list --frobnicate --bank "$T/bank"
expect 2 "missing argument" "$AOE" bank show --bank "$T/bank"
expect 2 "--margin" "$AOE" bank import "$T/good.json" --margin -3 --bank "$T/bank"
expect 1 "not a key" "$AOE" bank show xyz --bank "$T/bank"

# merge across devices is refused, naming both
printf '{"format":"aoe-bank","version":1,"records":[{"fingerprint":"cuda|n|h100|550|cu=132","key":"%032x","kernel_name":"k","tuned_us":1,"policy":{"work_dim":1}}]}' 1 >"$T/other.json"
"$AOE" bank import "$T/other.json" --bank "$T/other" >/dev/null
expect 1 "cuda|n|h100|550|cu=132" "$AOE" bank merge "$T/other" --bank "$T/bank"
grep -qF "opencl|v|d|1|cu=1" "$T/err" || { echo "FAIL: merge refusal names one device only" >&2; exit 1; }

# output that cannot be written (a full disk: /dev/full; stdout closed): exit 1
# and one message, never exit 0 with the output lost (`aoe bank export >
# backup.json` on a full disk used to say "N records" and exit 0)
for c in list "list --json" stats verify "show 00000000000000000000000000001000" export; do
  rc=0
  # shellcheck disable=SC2086 # the command and its arguments
  "$AOE" bank $c --bank "$T/bank" >/dev/full 2>"$T/err" || rc=$?
  [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "could not be written.*No space left" "$T/err" ||
    { cat "$T/err" >&2; echo "FAIL: bank $c to a full disk exited $rc" >&2; exit 1; }
done
for c in "config" "--help" "bank list --bank $T/bank"; do
  rc=0
  # shellcheck disable=SC2086
  "$AOE" $c >&- 2>"$T/err" || rc=$?
  [ $rc = 1 ] && grep -q "could not be written: Bad file descriptor" "$T/err" ||
    { cat "$T/err" >&2; echo "FAIL: $c with stdout closed exited $rc" >&2; exit 1; }
done
# and input that cannot be read says why
expect 1 "cannot read $T: Is a directory" "$AOE" bank import "$T" --bank "$T/bank"
# export -o replaces its file by a rename: never a device or a link
expect 1 "not a regular file" "$AOE" bank export -o /dev/null --bank "$T/bank"
[ -c /dev/null ] || { echo "FAIL: export -o replaced /dev/null" >&2; exit 1; }
ln -s "$T/good.json" "$T/link.json"
expect 1 "not a regular file" "$AOE" bank export -o "$T/link.json" --bank "$T/bank"
[ -L "$T/link.json" ] || { echo "FAIL: export -o replaced a link" >&2; exit 1; }

# a bank the user cannot write: read-only use works, writes say why
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$T" "$T/bank" && chmod 644 "$T/bank"/*.mdb
  asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  asuser "$AOE" bank list --bank "$T/bank" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; echo "FAIL: read-only list as another user" >&2; exit 1; }
  rc=0
  asuser "$AOE" bank import "$T/good.json" --bank "$T/bank" >/dev/null 2>"$T/err" || rc=$?
  [ $rc -eq 1 ] && grep -q "read-only" "$T/err" || { cat "$T/err" >&2; echo "FAIL: import into an unwritable bank" >&2; exit 1; }
fi
echo "ok: bad paths, garbage/truncated data.mdb, bad JSON and usage errors give one clear message"

# The same inputs once more against the AddressSanitizer + UBSan build when
# scripts/test has built it: no sanitizer report, same single message.
asan=${AOE_SOURCE_DIR:-}/build-asan
if [ -z "${AOE_BAD_INPUT_ASAN_PASS:-}" ] && [ -x "$asan/bin/aoe" ] && [ "$asan" != "$B" ]; then
  AOE_BAD_INPUT_ASAN_PASS=1 AOE_BUILD_DIR=$asan ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 bash "$0"
fi
