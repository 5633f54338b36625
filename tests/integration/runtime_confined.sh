#!/usr/bin/env bash
# No OpenCL header, type (cl_*), constant (CL_*), function (cl[A-Z]*) or
# library name outside hooks/opencl* and tuner/exec_opencl* (comments aside):
# a runtime is a set of files. Also checks that a planted use is reported.
set -euo pipefail
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # check SOURCE_ROOT
  python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
folders = ['core', 'store', 'jobs', 'space', 'launch', 'preload', 'hooks', 'tuner']
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
string = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Each runtime: where it may appear, what gives it away, and whether names
# inside string literals count (neutral code names CUDA's types in messages:
# "a cudaDataType_t value"; an #include "..." never hides one: <...> only).
runtimes = [
    ([re.compile(r'^hooks/opencl[^/]*$'), re.compile(r'^tuner/exec_opencl[^/]*$')],
     re.compile(r'<CL/|"CL/|\bcl_[a-z][a-z0-9_]*\b|\bCL_[A-Z][A-Z0-9_]*\b|\bcl[A-Z][A-Za-z0-9]*\b'
                r'|libOpenCL'), False),
    # CUDA (cuBLAS, cuBLASLt, the driver, NVRTC): headers, types, constants, functions.
    ([re.compile(r'^hooks/(cublas|cuda|nvrtc)[^/]*$'), re.compile(r'^tuner/exec_(cublas|cuda|gemm)[^/]*$')],
     re.compile(r'<cublas|<cuda|<nvrtc|\bnvrtc[A-Z][A-Za-z0-9_]*\b|\bNVRTC_[A-Z][A-Z0-9_]*\b'
                r'|\bcublas[A-Z][A-Za-z0-9_]*\b|\bCUBLAS(LT)?_[A-Z][A-Z0-9_]*\b'
                r'|\bcu[A-Z][a-z][A-Za-z0-9_]*\b|\bCUDA_[A-Z][A-Z0-9_]*\b|\bcuda[A-Z][A-Za-z0-9_]*\b'
                r'|\bCU_[A-Z][A-Z0-9_]*\b|\bCU[a-z][A-Za-z0-9_]*\b'), True),
]
bad, files = [], 0
for top in folders:
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if not n.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, n), root)
            files += 1
            code = comment.sub(lambda m: '\n' * m.group(0).count('\n'), open(os.path.join(root, rel)).read())
            for allowed, pattern, skip_strings in runtimes:
                if any(a.match(rel) for a in allowed):
                    continue
                text = string.sub('""', code) if skip_strings else code
                for i, line in enumerate(text.splitlines(), 1):
                    for hit in pattern.finditer(line):
                        bad.append('%s:%d: %s' % (rel, i, hit.group(0)))
for b in bad:
    print('runtime_confined:', b)
if files < 50:
    sys.exit('runtime_confined: only %d source files found' % files)
sys.exit(1 if bad else 0)
PY
}

check "$S"
echo "runtime_confined: OpenCL appears only in hooks/opencl* and tuner/exec_opencl*, CUDA only in hooks/{cublas,cuda,nvrtc}* and tuner/exec_{cublas,cuda,gemm}*"

mkdir -p "$T/src"
for d in core store jobs space preload hooks tuner launch; do
  [ -d "$S/$d" ] && cp -r "$S/$d" "$T/src/"
done
printf '#include <CL/cl.h>\nstatic cl_mem m; /* clFoo in a comment is fine */\n' >"$T/src/preload/planted.c"
printf '#include <cublasLt.h>\nstatic cublasLtHandle_t h; /* cublasLtMatmul in a comment is fine */\n' >"$T/src/launch/planted_cuda.c"
printf 'static const char *s = "cuMemAlloc in a message is fine";\nstatic int x = CU_DEVICE_ATTRIBUTE_WARP_SIZE;\nstatic CUresult r;\n' \
  >"$T/src/tuner/planted_driver.c"
printf '#include <nvrtc.h>\nstatic nvrtcProgram p; /* nvrtcCompileProgram in a comment is fine */\nstatic int e = NVRTC_ERROR_COMPILATION;\n' \
  >"$T/src/preload/planted_nvrtc.c"
if check "$T/src" >"$T/out"; then
  echo "runtime_confined: a planted OpenCL use in preload/ was not reported" >&2
  exit 1
fi
grep -q 'preload/planted.c:1: <CL/' "$T/out" && grep -q 'preload/planted.c:2: cl_mem' "$T/out"
grep -q 'launch/planted_cuda.c:1: <cublas' "$T/out" && grep -q 'launch/planted_cuda.c:2: cublasLtHandle_t' "$T/out"
! grep -q clFoo "$T/out"
! grep -q cublasLtMatmul "$T/out"
grep -q 'preload/planted_nvrtc.c:1: <nvrtc' "$T/out" && grep -q 'preload/planted_nvrtc.c:2: nvrtcProgram' "$T/out" &&
  grep -q 'preload/planted_nvrtc.c:3: NVRTC_ERROR_COMPILATION' "$T/out" && ! grep -q 'nvrtcCompileProgram' "$T/out"
grep -q 'tuner/planted_driver.c:2: CU_DEVICE_ATTRIBUTE_WARP_SIZE' "$T/out" &&
  grep -q 'tuner/planted_driver.c:3: CUresult' "$T/out" && ! grep -q 'planted_driver.c:1' "$T/out"
echo "runtime_confined: a planted use is reported, comments are not"
