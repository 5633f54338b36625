# Sourced by tests that need a second local user (the "other user" of a
# shared directory). As root (CI) a throw-away system user is created and
# removed on exit; otherwise the test says why it cannot run and exits 77,
# which CTest reports as skipped (tests/CMakeLists.txt), not passed.
# Sets OTHER (name), OTHER_UID, and as_other CMD... (runs CMD as that user).
need_second_user() {
  if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
    echo "${0##*/}: SKIP: needs root with useradd and setpriv to create a second user (CI runs as root)"
    exit 77
  fi
  OTHER="aoe-t$$"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$OTHER" >/dev/null ||
    fail "useradd $OTHER failed"
  OTHER_UID=$(id -u "$OTHER")
  trap 'userdel "$OTHER" >/dev/null 2>&1 || true; cleanup' EXIT
  chmod 755 "$T" # the other user must reach the shared directories inside
}
as_other() { setpriv --reuid="$OTHER_UID" --regid="$(id -g "$OTHER")" --clear-groups "$@"; }
