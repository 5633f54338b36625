#!/usr/bin/env bash
# Issue 15, warm runs: a program compiled with NVRTC only on its first run
# (CuPy's kernel cache, PyTorch's jiterator, NVRTC's own cache) loads the
# cached CUBIN later without calling NVRTC. Run 1 (cuda_nvrtc_tune_linked
# save: NVRTC, the CUBIN written to a file) tunes tscale and remembers its
# program in $AOE_WORK_PATH/nvrtc/<image hash>-<size>.json (0600, its
# source, headers, options, image, libnvrtc). The warm client
# (cuda_module_file_linked: loads the file with cuModuleLoadData, not linked
# with libnvrtc, which is not on LD_LIBRARY_PATH) then finds the program:
# tscale is captured under run 1's key, vcopy listed as undeclared (not
# precompiled); with a bank record WPT=2 the variant is built through the
# remembered libnvrtc and launched. Bad remembered files (truncated, wrong
# types, another image's, huge, a link, a FIFO, writable by others, someone
# else's) and a remembered libnvrtc others can write: ignored with one
# message, output unchanged. AOE_TUNE_MODE=off remembers nothing; a full
# directory (4096 files) takes no more; a dead writer's temporary file goes.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
cold=$B/clients/cuda_nvrtc_tune_linked
warm=$B/clients/cuda_module_file_linked
if [ ! -x "$cold" ] || [ ! -x "$warm" ]; then
  echo "shim_cuda_warm: skipped: no $cold (configured without CUDA headers)"
  exit 77
fi
export AOE_LOG_LEVEL=debug AOE_TUNABLES=$S/tests/tunables/cuda_tscale.json
COLD_PATH=$B/fakecuda:$B/fakenvrtc
WARM_PATH=$B/fakecuda # no libnvrtc to be found but the remembered one
img=$T/tscale.cubin
want=$(LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$cold" save "$img") ||
  fail "without the shim: $want"
[ "$want" = "tscale then vcopy: 0 1.5 1534.5, right" ] || fail "client: $want"
wwant=$(LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$warm" "$img") ||
  fail "warm, without the shim: $wwant"
[ "$wwant" = "$want" ] || fail "warm client: $wwant"
clean() { rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*; }
kernels() { json "$(latest_result)" '[(o["op_name"], o["reason"]) for o in r["OPAT"]["not_tuned"]]'; }

# AOE_TUNE_MODE=off: nothing remembered.
out=$(AOE_TUNE_MODE=off LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="$HOOK" "$cold" 2>"$T/err_off") ||
  fail "off: $(cat "$T/err_off")"
[ "$out" = "$want" ] || fail "off: $out"
[ ! -e "$AOE_WORK_PATH/nvrtc" ] || fail "off: remembered $(ls -la "$AOE_WORK_PATH/nvrtc")"
clean

# A full directory (4096 files): nothing more remembered, said once.
mkdir -m 700 "$AOE_WORK_PATH/nvrtc"
(cd "$AOE_WORK_PATH/nvrtc" && seq -f 'f%04g.json' 1 4096 | xargs touch)
AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="$HOOK" "$cold" >/dev/null 2>"$T/err_full" ||
  fail "full: $(cat "$T/err_full")"
[ "$(ls "$AOE_WORK_PATH/nvrtc" | wc -l)" = 4096 ] || fail "full: $(ls "$AOE_WORK_PATH/nvrtc" | grep -v '^f')"
[ "$(grep -c 'holds 4096 remembered NVRTC programs: no more are remembered' "$T/err_full")" = 1 ] ||
  fail "full: not said: $(grep -i nvrtc "$T/err_full")"
rm -rf "$AOE_WORK_PATH/nvrtc"
clean

# A writer's temporary file left by a dead process: removed when a program
# is remembered (a fresh one is another writer's: kept).
mkdir -m 700 "$AOE_WORK_PATH/nvrtc"
touch -d '2001-01-01' "$AOE_WORK_PATH/nvrtc/0000000000000001-1.json.tmp99999"
touch "$AOE_WORK_PATH/nvrtc/0000000000000002-1.json.tmp99998"

# Run 1: compiled with NVRTC, captured, remembered.
out=$(AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="$HOOK" "$cold" save "$img" \
  2>"$T/err1") || fail "run 1: $(cat "$T/err1")"
[ "$out" = "$want" ] || fail "run 1: $out"
job1=$(ls "$AOE_WORK_PATH"/spool/*.job) || fail "run 1: no job $(cat "$T/err1")"
cp "$job1" "$T/job.json"
files=("$AOE_WORK_PATH"/nvrtc/*.json)
[ ${#files[@]} = 1 ] && [ -f "${files[0]}" ] || fail "run 1: remembered ${files[*]} $(cat "$T/err1")"
rem=${files[0]}
[ "$(stat -c %a "$AOE_WORK_PATH/nvrtc")" = 700 ] || fail "directory mode $(stat -c %a "$AOE_WORK_PATH/nvrtc")"
[ "$(stat -c %a "$rem")" = 600 ] || fail "file mode $(stat -c %a "$rem")"
"$PY" - "$rem" "$img" "$S/tests/clients/cuda/driver/cuda_nvrtc_tune_linked.c" <<'PYEOF' || fail "contents: $(cat "$rem")"
import json, os, sys
j = json.load(open(sys.argv[1]))
image = open(sys.argv[2], "rb").read()
def want(what, got, expect):
    if got != expect:
        sys.exit("%s: %r, expected %r" % (what, got, expect))
want("format", (j["format"], j["version"]), ("aoe-nvrtc-program", 1))
want("image", (j["image"]["kind"], j["image"]["size"]), ("cubin", len(image)))
want("file name", os.path.basename(sys.argv[1]), "%s-%d.json" % (j["image"]["hash"], len(image)))
want("name", j["name"], "tscale.cu")
if "tscale(float *__restrict__ out" not in j["source"] or "#ifndef WPT" not in j["source"]:
    sys.exit("source: " + j["source"])
want("headers", j["headers"], [{"name": "tscale_util.h", "source": "#define TSCALE_HEADER 1\n"}])
want("options", j["options"], ["--gpu-architecture=sm_90", "-DUNUSED=7"])
want("name expressions", j["name_expressions"], [])
if not j["nvrtc_library"].endswith("/fakenvrtc/libnvrtc.so.13"): sys.exit("library " + j["nvrtc_library"])
PYEOF
grep -q "nvrtc program tscale.cu remembered as $rem" "$T/err1" || fail "run 1: not said: $(cat "$T/err1")"
[ ! -e "$AOE_WORK_PATH/nvrtc/0000000000000001-1.json.tmp99999" ] || fail "run 1: stale temporary file kept"
[ -e "$AOE_WORK_PATH/nvrtc/0000000000000002-1.json.tmp99998" ] || fail "run 1: a fresh temporary file removed"
rm "$AOE_WORK_PATH/nvrtc/0000000000000002-1.json.tmp99998"
cp "$rem" "$T/good.json"
clean

# A second cold run: the file exists, nothing rewritten.
touch -d '2001-01-01' "$rem"
AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="$HOOK" "$cold" >/dev/null 2>"$T/err1b" ||
  fail "run 1b: $(cat "$T/err1b")"
[ "$(stat -c %Y "$rem")" = "$(date -d 2001-01-01 +%s)" ] || fail "run 1b: the file was rewritten"
clean

# The warm run: the program found, tscale captured under run 1's key.
out=$(AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$img" \
  2>"$T/err2") || fail "warm: $(cat "$T/err2")"
[ "$out" = "$want" ] || fail "warm: $out"
grep -q "NVRTC program tscale.cu recalled from $rem" "$T/err2" || fail "warm: not recalled: $(cat "$T/err2")"
[ "$(kernels)" = "[('vcopy', 'no_tunables_declaration')]" ] || fail "warm: kernel list: $(kernels)"
[ "$(basename "$(ls "$AOE_WORK_PATH"/spool/*.job)")" = "$(basename "$job1")" ] ||
  fail "warm: job $(ls "$AOE_WORK_PATH/spool"), run 1 spooled $(basename "$job1")"
clean

# A hit in the warm run: the variant (WPT=2) built through the remembered libnvrtc.
"$PY" - "$T/job.json" >"$T/rec.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
rec = {"fingerprint": j["fingerprint"], "key": j["key"], "runtime": "cuda", "kernel_name": "tscale",
       "policy": {"params": [{"name": "WPT", "value": 2, "define": True}], "work_dim": 1,
                  "global": [512], "local": [128]},
       "default_us": 2.0, "tuned_us": 1.0, "strategy": "manual", "summary": "shim_cuda_warm"}
json.dump({"format": "aoe-bank", "version": 1, "records": [rec]}, sys.stdout)
PYEOF
"$AOE" bank import "$T/rec.json" >/dev/null || fail "bank import"
out=$(AOE_TUNE_MODE=off LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$img" hit 20 \
  2>"$T/err3") || fail "hit: $(cat "$T/err3")"
case $out in
"hit: wpt 2 after "*" launches, output right, last launch cuLaunchKernel") ;;
*) fail "hit: the variant did not run: $out $(grep -i 'nvrtc\|tscale\|variant' "$T/err3" | tail -20)" ;;
esac
[ "$(json "$(latest_result)" 'r["OPAT"]["modified_operators"][0]["tuned_launches"] > 0')" = True ] ||
  fail "hit: no tuned launch counted: $(cat "$(latest_result)")"
clean

# The same with the PTX: remembered as "ptx", the variant compiled to PTX.
rm -rf "$AOE_WORK_PATH"/nvrtc.cubin && mv "$AOE_WORK_PATH/nvrtc" "$AOE_WORK_PATH/nvrtc.cubin"
out=$(AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$COLD_PATH LD_PRELOAD="$HOOK" "$cold" saveptx "$T/tscale.ptx" \
  2>"$T/err_ptx1") || fail "ptx run 1: $(cat "$T/err_ptx1")"
[ "$out" = "$want" ] || fail "ptx run 1: $out"
json "$(ls "$AOE_WORK_PATH"/nvrtc/*.json)" 'r["image"]["kind"]' | grep -qx ptx ||
  fail "ptx run 1: $(cat "$AOE_WORK_PATH"/nvrtc/*.json)"
clean
out=$(AOE_TUNE_MODE=off LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$T/tscale.ptx" hit 20 \
  2>"$T/err_ptx2") || fail "ptx hit: $(cat "$T/err_ptx2")"
case $out in
"hit: wpt 2 after "*" launches, output right, last launch cuLaunchKernel") ;;
*) fail "ptx hit: the variant did not run: $out $(grep -i 'nvrtc\|tscale\|variant' "$T/err_ptx2" | tail -20)" ;;
esac
grep -q "kind 3, .*from NVRTC program tscale.cu" "$T/err_ptx2" || fail "ptx hit: $(grep -i module "$T/err_ptx2")"
rm -rf "$AOE_WORK_PATH/nvrtc" && mv "$AOE_WORK_PATH/nvrtc.cubin" "$AOE_WORK_PATH/nvrtc"
clean

# A remembered libnvrtc others can write: no variant, one message, output right.
mkdir -p "$T/lib"
cp "$B/fakenvrtc/libnvrtc.so.13" "$T/lib/"
chmod 666 "$T/lib/libnvrtc.so.13"
"$PY" - "$T/good.json" "$T/lib/libnvrtc.so.13" >"$rem" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1])); j["nvrtc_library"] = sys.argv[2]; print(json.dumps(j))
PYEOF
out=$(AOE_TUNE_MODE=off LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$img" hit 1 \
  2>"$T/err4") || fail "bad library: $(cat "$T/err4")"
case $out in
"hit: wpt 1 after "*" launches, output right, last launch cuLaunchKernel") ;;
*) fail "bad library: $out" ;;
esac
grep -q "the NVRTC library $T/lib/libnvrtc.so.13 is not owned by you or root, or others can write it" \
  "$T/err4" || fail "bad library: not said: $(grep -i 'variant\|nvrtc' "$T/err4")"
clean

# Bad remembered files: ignored (one message), both kernels precompiled,
# the output unchanged, never a crash.
bad_case() { # NAME: the file at $rem is bad
  local name=$1 out
  out=$(AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$img" \
    2>"$T/err_$name") || fail "$name: $(cat "$T/err_$name")"
  [ "$out" = "$want" ] || fail "$name: $out"
  [ "$(grep -c "remembered NVRTC program $rem ignored" "$T/err_$name")" = 1 ] ||
    fail "$name: not said once: $(grep -i nvrtc "$T/err_$name")"
  [ "$(kernels)" = "[('tscale', 'precompiled'), ('vcopy', 'precompiled')]" ] ||
    fail "$name: kernel list: $(kernels)"
  ! compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "$name: captured"
  clean
  rm -f "$rem"
}
put() { rm -f "$rem" && cat >"$rem" && chmod 600 "$rem"; }
head -c 300 "$T/good.json" | put
bad_case truncated
"$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); j["options"]=[1, 2]; print(json.dumps(j))' \
  "$T/good.json" | put
bad_case wrong_types
"$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); j["headers"]={"a": 1}; print(json.dumps(j))' \
  "$T/good.json" | put
bad_case wrong_headers
"$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); j["image"]["hash"]="0123456789abcdef"; print(json.dumps(j))' \
  "$T/good.json" | put
bad_case other_image
"$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); j["nvrtc_library"]="lib/x.so"; print(json.dumps(j))' \
  "$T/good.json" | put
bad_case relative_library
"$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); j["source"]+="//"+"x"*(9<<20); print(json.dumps(j))' \
  "$T/good.json" | put
bad_case huge
cp "$T/good.json" "$T/elsewhere.json"
ln -s "$T/elsewhere.json" "$rem"
bad_case symlink
put <"$T/good.json"
chmod 620 "$rem"
bad_case group_writable
mkfifo -m 600 "$rem"
bad_case fifo
put <"$T/good.json"
ln "$rem" "$T/second_link.json"
bad_case two_links
rm -f "$T/second_link.json"
if [ "$(id -u)" = 0 ]; then
  put <"$T/good.json"
  chown 65534 "$rem"
  bad_case foreign
else
  echo "shim_cuda_warm: the foreign-owner case needs root (chown); the other cases ran"
fi

# The good file again: found (the cases above did not poison anything).
put <"$T/good.json"
out=$(AOE_TUNE_MODE=offline LD_LIBRARY_PATH=$WARM_PATH LD_PRELOAD="$HOOK" "$warm" "$img" 2>"$T/err5") ||
  fail "again: $(cat "$T/err5")"
[ "$(kernels)" = "[('vcopy', 'no_tunables_declaration')]" ] || fail "again: kernel list: $(kernels)"
echo "shim_cuda_warm: a tuned NVRTC program remembered (0600, its fields), found again by a warm run that loads its CUBIN without NVRTC (captured under the same key, the variant built through the remembered libnvrtc), bad files and libraries ignored, nothing remembered when off"
