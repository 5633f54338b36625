#!/usr/bin/env bash
# Issue 12, items 3 and 4: a directory another user owns or can write is never
# trusted. That user plants links to the victim's file (spool/tuner.log,
# lock.mdb in a bank directory, the result file's temporary name) and a job
# whose kernel fails to build with ';command;' in its error text. The victim's
# program still runs (output unchanged), the victim file is untouched, the
# planted job is not run, and one message names what was refused.
set -euo pipefail
. "$(dirname "$0")/second_user.bash"
. "$(dirname "$0")/shim_helpers.bash"
need_second_user
client="$B/clients/transpose"
ref=$(checksum_of "$("$client" --checksum)")
victim=$T/victim
echo "the victim's own file" >"$victim"
chmod 644 "$victim"
sum0=$(sha256sum <"$victim")
untouched() { [ "$(sha256sum <"$victim")" = "$sum0" ] || fail "$1: victim file changed: $(cat "$victim")"; }
team=$T/team # a group team directory: the other user's, writable by all, not sticky
mkdir -m 777 "$team"
chown "$OTHER" "$team"

# (a) AOE_WORK_PATH in the team directory: the other user made the spool,
# linked tuner.log to the victim file and queued a job that fails to build
# with ';touch ...;' in the compiler's error text.
AOE_TUNE_MODE=offline AOE_WORK_PATH="$T/cap" LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1
job=$(ls "$T"/cap/spool/*.job)
"$PY" - "$job" "$T/evil.json" "$T/pwned" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["program"]["source"] = "#error ;touch %s;\n" % sys.argv[3] + j["program"]["source"]
json.dump(j, open(sys.argv[2], "w"))
PY
key=$("$AOE" tune --dry-run "$T/evil.json" 2>&1 | grep -o 'expected [0-9a-f]\{32\}' | head -1 | cut -c10-) ||
  true
[ -n "$key" ] || fail "could not key the planted job"
"$PY" - "$T/evil.json" "$key" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["key"] = sys.argv[2]; json.dump(j, open(sys.argv[1], "w"))
PY
chmod 644 "$T/evil.json"
as_other mkdir -m 777 "$team/aoe-work" "$team/aoe-work/spool"
as_other ln -s "$victim" "$team/aoe-work/spool/tuner.log"
as_other cp "$T/evil.json" "$team/aoe-work/spool/$key.job"
out=$(AOE_WORK_PATH="$team/aoe-work" AOE_TUNER_IDLE_EXIT=1 LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err_a")
[ "$(checksum_of "$out")" = "$ref" ] || fail "(a) output changed: $out"
sleep 3 # a tuner started despite the refusal would have written by now
untouched "(a) tuner.log link"
[ ! -e "$T/pwned" ] || fail "(a) the planted command ran"
[ -e "$team/aoe-work/spool/$key.job" ] || fail "(a) the planted job was claimed"
[ "$(grep -c 'spool' "$T/err_a")" = 1 ] || fail "(a) expected one message about the spool: $(cat "$T/err_a")"
rc=0
"$AOE" tune --spool "$team/aoe-work/spool" >/dev/null 2>"$T/err_a2" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err_a2")" = 1 ] && grep -q refusing "$T/err_a2" ||
  fail "(a) aoe tune --spool: rc $rc: $(cat "$T/err_a2")"
untouched "(a) aoe tune --spool"

# (b) TUNE_BANK_PATH in the team directory: a real bank whose lock.mdb is a
# link to the victim file (LMDB opens and truncates its lock file).
printf '{"format":"aoe-bank","version":1,"records":[]}' >"$T/empty.json"
"$AOE" bank import "$T/empty.json" --bank "$T/mk" >/dev/null
chmod 755 "$T/mk" && chmod 644 "$T/mk/data.mdb"
as_other mkdir -m 777 "$team/bank"
as_other cp "$T/mk/data.mdb" "$team/bank/data.mdb"
as_other ln -s "$victim" "$team/bank/lock.mdb"
out=$(TUNE_BANK_PATH="$team/bank" AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err_b")
[ "$(checksum_of "$out")" = "$ref" ] || fail "(b) output changed: $out"
untouched "(b) lock.mdb link, shim"
[ "$(grep -c "$team/bank" "$T/err_b")" = 1 ] || fail "(b) expected one message: $(cat "$T/err_b")"
rc=0
"$AOE" bank list --bank "$team/bank" >/dev/null 2>"$T/err_b2" || rc=$?
untouched "(b) lock.mdb link, aoe bank list"
[ $rc = 1 ] && [ "$(wc -l <"$T/err_b2")" = 1 ] || fail "(b) aoe bank list: rc $rc: $(cat "$T/err_b2")"

# (c) A shared working directory, AOE_TUNE_MODE=off: the other user linked
# the result file's temporary name (it carries the time and the pid) to the
# victim file for the next few seconds.
out=$(
  cd "$team"
  for d in 0 1 2 3 4; do
    ts=$(date -d "+$d sec" +%Y%m%d%H%M%S)
    as_other ln -s "$victim" "aoe_result_opat_${ts}_$BASHPID.json.tmp"
  done
  unset AOE_WORK_PATH
  exec env AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err_c"
)
[ "$(checksum_of "$out")" = "$ref" ] || fail "(c) output changed: $out"
untouched "(c) result tmp link"
r=$(latest_result "$team")
[ -f "$r" ] && [ ! -L "$r" ] || fail "(c) no result file: $(ls -l "$team")"
[ "$(stat -c %a "$r")" = 600 ] || fail "(c) result file mode $(stat -c %a "$r")"
echo "security_other_user: ok (links to the victim file never followed, planted job not run)"
