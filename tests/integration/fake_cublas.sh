#!/usr/bin/env bash
# The cuBLAS / cuBLASLt test doubles (tests/fakecublas): a client calling them
# as PyTorch does gets correct results (bf16, f16, fp32); a client linked
# against the REAL libcublasLt.so.13 / libcublas.so.13 runs on the fakes
# through LD_LIBRARY_PATH (same sonames and version nodes); the heuristic ranks
# by the catalogue's cost model and honours the workspace limit and alignment;
# an algorithm configuration set with AlgoInit + ConfigSetAttribute reads back
# (also from a copy of its 64 bytes) and AlgoCheck accepts or refuses it per
# the catalogue; planted algorithms give a wrong result, a NaN or an
# out-of-bounds write; a catalogue from FAKECUBLAS_CATALOGUE (JSON) replaces
# the built-in one, and a bad one is refused with one message.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
FAKE=$B/fakecublas
if [ ! -e "$FAKE/libcublasLt.so.13" ]; then
  # ctest counts 77 as skipped only when the build has no CUDA headers
  # (tests/CMakeLists.txt); with AOE_CUDA=ON a missing fake is a failure.
  echo "fake_cublas: skipped: no $FAKE/libcublasLt.so.13 (configured without CUDA headers)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "fake_cublas: $*" >&2; exit 1; }
unset FAKECUBLAS_CATALOGUE
client=$B/clients/gemm_torchlike probe=$B/clients/lt_probe

# 1. PyTorch's four GEMM paths on the fakes give correct results.
for type in bf16 f16; do
  out=$("$client" "$type") || fail "gemm_torchlike $type failed: $out"
  [ "$(grep -c ': ok$' <<<"$out")" = 4 ] || fail "gemm_torchlike $type: not 4 correct results: $out"
  grep -q '^cublasLtGetVersion 130100$' <<<"$out" || fail "version: $out"
done
grep -q '^heuristic: 1 algorithm(s): id 6 ' <<<"$out" || fail "skinny Linear did not get id 6: $out"
out=$("$client" bf16 64 64 64) || fail "gemm_torchlike 64^3 failed: $out"
grep -q '^heuristic: 1 algorithm(s): id 66 tile 0 split_k 1 workspace 0$' <<<"$out" || fail "64^3 did not get id 66: $out"
echo "fake_cublas: Linear with bias (cuBLASLt), mm, bmm and fp32 mm (cuBLAS) correct in bf16 and f16"

# 2. Linked against the real libraries, run on the fakes.
real=$B/clients/gemm_torchlike_real
[ -x "$real" ] || fail "$real was not built (the toolkit's libcublasLt.so.13 not found at configure time)"
readelf -V "$real" | grep -q 'Name: libcublasLt.so.13' || fail "$real does not need version libcublasLt.so.13"
readelf -V "$real" | grep -q 'Name: libcublas.so.13' || fail "$real does not need version libcublas.so.13"
out=$(LD_BIND_NOW=1 LD_LIBRARY_PATH=$FAKE "$real" 2>&1) || fail "real-linked client on the fakes failed: $out"
grep -q '^linked against the real' <<<"$out" && [ "$(grep -c ': ok$' <<<"$out")" = 4 ] ||
  fail "real-linked client: $out"
grep -q '^linear_bias time_us 3\.' <<<"$out" || fail "real-linked client did not run on the fake cuBLASLt: $out"
grep -q '^mm time_us 3\.' <<<"$out" || fail "real-linked client did not run on the fake cuBLAS: $out"
echo "fake_cublas: a program linked against the real libcublasLt.so.13 and libcublas.so.13 binds to the fakes"

# 3. The heuristic: ranked by the cost model, workspace limit, alignment.
ids() { grep '^rank [0-9]' <<<"$1" | awk '{print $4}' | xargs; }
times_sorted() { grep '^rank [0-9]' <<<"$1" | awk '{print $8}' | sort -c -g; }
out=$("$probe" rank 64 64 64 1048576 256)
[ "$(ids "$out")" = "66 6" ] || fail "1 MiB workspace: $out"
times_sorted "$out" || fail "not ranked by time: $out"
out=$("$probe" rank 64 64 64 33554432 256)
[ "$(ids "$out")" = "21 66 6" ] || fail "32 MiB workspace: $out"
times_sorted "$out" || fail "not ranked by time: $out"
grep -q '^rank 0: id 21 workspace 4194304 ' <<<"$out" || fail "id 21's workspace: $out"
[ "$(ids "$("$probe" rank 64 64 64 1048576 8)")" = "6" ] || fail "8-byte alignment must leave id 6 only"
out=$("$probe" rank 64 64 64 1048576 2)
grep -q '^rank: status 15, 0 result' <<<"$out" || fail "2-byte alignment must be NOT_SUPPORTED: $out"
echo "fake_cublas: the heuristic ranks by the cost model and honours the workspace limit and alignment"

# 4. Configurations round-trip; AlgoCheck follows the catalogue.
out=$("$probe" config)
expect() { grep -qx -- "$1" <<<"$out" || fail "config: no line '$1' in: $out"; }
expect "check init: status 0 workspace 0"
expect "set id readonly: status 7"
expect "set wrong size: status 7"
for l in "id 6 (4" "tile 20 (4" "split_k 4 (4" "reduction 2 (4" "swizzle 1 (4" "custom 2 (4" "stages 12 (4" \
  "inner 3 (2" "cluster 0 (2"; do expect "config $l bytes)"; done
expect "check tuned: status 0 workspace 8192"
expect "copied configuration runs alike: yes"
for l in "tile 99" "custom 4" "cluster 2" "id 21 split_k 4"; do expect "check $l: status 15 workspace 0"; done
expect "init id 5 for bf16: status 15"
expect "init id 77: status 7"
expect "check f32 algo on bf16: status 7 workspace 0"
expect "ids: 66 6 21 90 91 92"
expect "caps id 6: tiles 18 20 23; custom max 3; split-K 1; alignment 4"
expect "caps id 66: tiles; custom max 0; split-K 1; alignment 16"
echo "fake_cublas: AlgoInit + ConfigSetAttribute read back (also from a copy); AlgoCheck per the catalogue"

# 5. Planted algorithms; what cublasLtMatmul refuses; a tuner finds a faster one.
[ "$("$probe" planted 6)" = "planted 6: correct" ] || fail "id 6 is not correct"
"$probe" planted 90 | grep -q '^planted 90: wrong (max relative error 0.05, 0 NaN)$' || fail "planted 90 not wrong"
"$probe" planted 91 | grep -q '^planted 91: wrong (.*, 1 NaN)$' || fail "planted 91 gave no NaN"
[ "$("$probe" planted 92)" = "planted 92: out of bounds" ] || fail "planted 92 wrote in bounds"
out=$("$probe" refuse)
expect "refuse misaligned A: status 15"
expect "refuse small workspace: status 7"
expect "accept aligned: status 0"
expect "refuse above the size limit: status 15"
out=$("$probe" tune)
expect "tune: faster configuration found"
grep -q 'best of [0-9]*: id 6 split_k 8 swizzle 0 ' <<<"$out" || fail "tune: $out"
echo "fake_cublas: planted algorithms are wrong, NaN and out of bounds; refusals; split-K wins on a skinny GEMM"

# 6. A catalogue from FAKECUBLAS_CATALOGUE.
cat >"$T/cat.json" <<'JSON'
{ "cublas_default": 1,
  "algorithms": [
    { "id": 1, "types": ["bf16", "f16", "f32"], "tiles": [7], "speed": { "small": 1.0 } },
    { "id": 2, "types": ["bf16"], "speed": { "small": 3.0 }, "workspace_base": 2097152 },
    { "id": 3, "types": ["bf16"], "speed": { "small": 2.0 }, "align": 64 },
    { "id": 4, "types": ["bf16"], "speed": { "small": 9.0 }, "heuristic": false }
  ] }
JSON
export FAKECUBLAS_CATALOGUE=$T/cat.json
[ "$(ids "$("$probe" rank 64 64 64 33554432 256)")" = "2 3 1" ] || fail "custom catalogue ranking"
[ "$(ids "$("$probe" rank 64 64 64 1048576 256)")" = "3 1" ] || fail "custom catalogue workspace limit"
[ "$(ids "$("$probe" rank 64 64 64 1048576 32)")" = "1" ] || fail "custom catalogue alignment"
"$client" >/dev/null || fail "client on the custom catalogue failed"
# A planted algorithm the heuristic offers first: the Linear comes out wrong.
sed 's/"id": 4, "types": \["bf16"\], "speed": { "small": 9.0 }, "heuristic": false/"id": 4, "types": ["bf16"], "speed": { "skinny": 9.0 }, "planted": "off"/' \
  "$T/cat.json" >"$T/planted.json"
grep -q '"planted": "off"' "$T/planted.json" || fail "test bug: planted catalogue not written"
set +e
out=$(FAKECUBLAS_CATALOGUE=$T/planted.json "$client" 2>&1)
rc=$?
set -e
[ $rc = 1 ] && grep -q '^heuristic: 1 algorithm(s): id 4 ' <<<"$out" &&
  grep -q '^linear_bias (cublasLtMatmul): .*: WRONG$' <<<"$out" && grep -q '^mm (cublasGemmEx): .*: ok$' <<<"$out" ||
  fail "a planted first choice must give a wrong Linear (rc $rc): $out"
# Bad catalogues: one message, a failing status, no crash.
for bad in '{"algorithms": [{"id": 1, "align": 3}]}' '{"algorithms": 5}' 'not json' \
  '{"algorithms": [{"id": 1}, {"id": 1}]}' '{"cublas_default": 9, "algorithms": [{"id": 1}]}'; do
  printf '%s' "$bad" >"$T/bad.json"
  set +e
  out=$(FAKECUBLAS_CATALOGUE=$T/bad.json "$client" 2>&1)
  rc=$?
  set -e
  [ $rc = 2 ] && [ "$(grep -c '^fakecublas:' <<<"$out")" = 1 ] &&
    grep -q "^fakecublas: FAKECUBLAS_CATALOGUE $T/bad.json is not a valid catalogue: " <<<"$out" ||
    fail "bad catalogue '$bad' (rc $rc): $out"
done
set +e
out=$(FAKECUBLAS_CATALOGUE=$T/missing.json "$client" 2>&1)
rc=$?
set -e
[ $rc = 2 ] && grep -q "^fakecublas: cannot read FAKECUBLAS_CATALOGUE $T/missing.json$" <<<"$out" ||
  fail "missing catalogue (rc $rc): $out"
echo "fake_cublas: FAKECUBLAS_CATALOGUE replaces the catalogue; a planted first choice is caught; bad ones refused"
