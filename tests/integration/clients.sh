#!/usr/bin/env bash
# The test clients run their kernels on the first OpenCL device (PoCL), verify
# against the CPU, print stable checksums, and emit tuning jobs that
# aoe_job_read accepts and that yield a search space; an edited job is refused.
set -euo pipefail
B="$AOE_BUILD_DIR/clients"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "clients: $*" >&2; exit 1; }

for c in gemm conv2d reduce transpose; do
    [ -x "$B/$c" ] || fail "$B/$c is not built"
    out=$("$B/$c" --checksum --repeat 2 --emit-job "$tmp/$c.job" --check-job "$tmp/$c.job") ||
        fail "$c failed: $out"
    grep -q "^$c: .* launches=2 ok$" <<<"$out" || fail "$c: no result line: $out"
    grep -q "^job ok: " <<<"$out" || fail "$c: job not accepted: $out"
    sum1=$(grep '^checksum=' <<<"$out") || fail "$c: no checksum"
    sum2=$("$B/$c" --checksum | grep '^checksum=') || fail "$c: second run failed"
    [ "$sum1" = "$sum2" ] || fail "$c: checksum differs between runs ($sum1, $sum2)"
    [ "$(stat -c %a "$tmp/$c.job")" = 600 ] || fail "$c: job file is not mode 0600"
    echo "$c: $(grep '^job ok' <<<"$out" | cut -c1-100)"
done

# The declared tunables and the work-group sizes show up where they should.
grep -q "space: TS in {8,16,32,64} x WPT in {1,2,4,8} x WIDTH in {1,2,4,8}" < <("$B/gemm" --check-job "$tmp/gemm.job") ||
    fail "gemm job does not get the declared space"
grep -q "space: PX in {1,2,4,8} x WG0 in" < <("$B/conv2d" --check-job "$tmp/conv2d.job") ||
    fail "conv2d job does not get PX and work-group sizes"

# An edited job (a size changed, the key kept) is refused, naming the key.
sed 's/"global":\[512,256\]/"global":[256,256]/' "$tmp/transpose.job" >"$tmp/edited.job"
cmp -s "$tmp/transpose.job" "$tmp/edited.job" && fail "could not edit the transpose job"
if out=$("$B/transpose" --check-job "$tmp/edited.job" 2>&1); then fail "edited job accepted"; fi
grep -q "rejected: key: does not match" <<<"$out" || fail "edited job: unexpected message: $out"

# Programs that set a tunable themselves (-D) still run and verify.
out=$("$B/gemm" --ts 32 --wpt 2 --m 128 --n 128 --k 128 --emit-job "$tmp/own.job" \
    --check-job "$tmp/own.job") || fail "gemm with its own -D values failed: $out"
grep -q "space: WIDTH in {1,2,4,8}" <<<"$out" || fail "gemm -DTS -DWPT: TS/WPT not dropped: $out"
# Usage errors exit 2.
set +e
"$B/reduce" --n 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "reduce --n 0 should exit 2"
"$B/gemm" --m 100 >/dev/null 2>&1
[ $? -eq 2 ] || fail "gemm --m 100 should exit 2"
set -e
echo "clients: ok"
