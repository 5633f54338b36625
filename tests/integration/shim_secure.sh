#!/usr/bin/env bash
# A program the kernel starts in secure-execution mode (set-user-ID,
# set-group-ID, file capabilities) runs with the invoking user's environment
# but its own privileges. glibc ignores LD_PRELOAD paths there, yet a shim
# listed in /etc/ld.so.preload, or linked in, is still loaded: it must then
# pass everything through, or TUNE_BANK_PATH, AOE_WORK_PATH and the spool
# would be written, and a tuner started, with the program's privileges at
# paths the invoking user chose. scalar_add_linked has the shim linked in
# ahead of the OpenCL loader; a set-group-ID copy of it (group nogroup, run
# as root: its effective group differs from its real one) is such a program.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
if [ "$(id -u)" != 0 ] || ! getent group nogroup >/dev/null; then
  echo "${0##*/}: SKIP: needs root and the group nogroup to make a set-group-ID program (CI runs as root)"
  exit 77
fi
if findmnt -no OPTIONS --target "$T" | tr , '\n' | grep -qx nosuid; then
  echo "${0##*/}: SKIP: $T is on a nosuid mount, where set-group-ID has no effect"
  exit 77
fi
linked="$B/clients/scalar_add_linked"
want=$(checksum_of "$("$B/clients/scalar_add" --value 5 --checksum)")

# the linked shim is active in an ordinary run: it captures the kernel
out=$(AOE_TUNE_MODE=offline "$linked" --value 5 --checksum 2>"$T/err") ||
  fail "the linked client failed: $(cat "$T/err")"
[ "$(checksum_of "$out")" = "$want" ] || fail "the linked client's output differs: $out"
compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null ||
  fail "the linked shim captured nothing in an ordinary run: $(cat "$T/err")"

# the set-group-ID copy, online (it would start a tuner), at fresh paths
mkdir "$T/sgid"
cp "$linked" "$T/sgid/"
chgrp nogroup "$T/sgid/scalar_add_linked"
chmod 2755 "$T/sgid/scalar_add_linked"
mkdir "$T/secure-work"
out=$(cd "$T/secure-work" && TUNE_BANK_PATH="$T/secure-bank" AOE_WORK_PATH="$T/secure-work" \
  AOE_TUNE_MODE=online AOE_LOG_LEVEL=debug "$T/sgid/scalar_add_linked" --value 5 --checksum \
  2>"$T/err") || fail "the set-group-ID client failed: $(cat "$T/err")"
[ "$(checksum_of "$out")" = "$want" ] || fail "the set-group-ID client's output differs: $out"
grep -q 'capability-raised program: the shim stays out' "$T/err" ||
  fail "the shim did not say it stays out of the set-group-ID program: $(cat "$T/err")"
[ ! -e "$T/secure-bank" ] || fail "a bank was created for the set-group-ID program"
[ -z "$(ls -A "$T/secure-work")" ] ||
  fail "the shim wrote for the set-group-ID program: $(ls -A "$T/secure-work")"
echo "shim_secure: ok"
