# Helpers for scripts that run a program under the shim and wait for its
# background tuner; sourced from the repository root
# (". scripts/lib/spool.bash"), not run.

# Launches that take about $2 seconds of a kernel that runs $1 microseconds
# (plus about 50 us of launch cost each), at least 20.
launches_for() { awk -v u="$1" -v s="$2" 'BEGIN { n = int(s * 1e6 / (u + 50)); print (n < 20 ? 20 : n) }'; }

# Waits until the spool of the work path $1 holds no job waiting or running,
# polling every 0.2 s, for at most $2 seconds; a tuner still busy then is left
# to the caller's next step.
wait_spool_drained() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    compgen -G "$1/spool/*.job" >/dev/null || compgen -G "$1/spool/*.running" >/dev/null || return 0
    sleep 0.2
  done
  return 0
}

# Stops the background tuner of each work path given (the process holding its
# spool's lock), so that none outlives the script.
stop_tuners() {
  local w
  for w in "$@"; do
    # fuser fails when no process holds the lock: not an error (set -e callers)
    if [ -e "$w/spool/tuner.lock" ]; then fuser -k "$w/spool/tuner.lock" >/dev/null 2>&1 || true; fi
  done
}
