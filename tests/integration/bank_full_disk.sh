#!/usr/bin/env bash
# A bank on a full file system: LMDB maps lock.mdb and writes its reader
# table through the map, so a lock file without blocks behind it killed
# `aoe tune` (and would kill a program under the shim) with SIGBUS. The bank
# reserves the lock file's blocks when it opens: a full disk is one message,
# and a program under the shim runs on with its own output. The full disk is
# a small tmpfs in a private mount namespace (needs root, as CI runs).
set -euo pipefail
B=${AOE_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! unshare -m true 2>/dev/null; then
  echo "bank_full_disk: cannot create a mount namespace here (needs root); skipped"
  exit 77
fi
mkdir -p "$T/fs" "$T/spool" "$T/work"
chmod 700 "$T/spool" "$T/work"
unshare -m bash -s "$T" "$B" <<'INNER'
set -euo pipefail
T=$1 B=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
mount -t tmpfs -o size=4m tmpfs "$T/fs"
chmod 700 "$T/fs"
"$B/clients/transpose" --emit-job "$T/job.json" >/dev/null
key=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/job.json")
dd if=/dev/zero of="$T/fs/filler" bs=4k 2>/dev/null || true
# 1. a new bank on the full disk: one clear message, no signal
cp "$T/job.json" "$T/spool/$key.job"
rc=0
TUNE_BANK_PATH=$T/fs/bank AOE_MAX_EVALS=2 "$B/bin/aoe" tune --spool "$T/spool" >"$T/out1" 2>&1 || rc=$?
[ "$rc" -lt 128 ] || { cat "$T/out1"; fail "aoe tune died of signal $((rc - 128)) on a full disk"; }
grep -q 'No space left on device' "$T/out1" || { cat "$T/out1"; fail "no 'No space left' message"; }
# 2. a program under the shim, bank on the full disk: runs, output unchanged
ref=$("$B/clients/transpose" --checksum | grep -o 'checksum=[0-9a-f]*')
rc=0
out=$(cd "$T/work" && TUNE_BANK_PATH=$T/fs/bank2 AOE_WORK_PATH=$T/work AOE_TUNE_MODE=offline \
  LD_PRELOAD="$B/lib/libaoe_hook.so" "$B/clients/transpose" --checksum 2>"$T/err2") || rc=$?
[ "$rc" = 0 ] || { cat "$T/err2"; fail "the program under the shim exited $rc"; }
[ "$(grep -o 'checksum=[0-9a-f]*' <<<"$out")" = "$ref" ] || fail "output changed: $out"
INNER
echo "ok: a bank on a full disk is one message, never a SIGBUS"
