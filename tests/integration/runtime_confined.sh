#!/usr/bin/env bash
# No OpenCL header, type (cl_*), constant (CL_*), function (cl[A-Z]*) or
# library name outside hooks/opencl* and tuner/exec_opencl* (comments aside):
# a runtime is a set of files. The same for CUDA (cuda.h, cublas*.h, cu[A-Z]*,
# cublas[A-Z]*, CU_*, CUDA_*, CUBLAS*_, CUresult, CUdevice*, cudaDataType*)
# outside hooks/cublas*, tuner/exec_cublas* and
# tuner/exec_gemm* (comments and string literals aside: messages may name the
# libraries' types). Also checks that planted uses are reported.
set -euo pipefail
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # check SOURCE_ROOT
  python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
folders = ['core', 'store', 'jobs', 'space', 'launch', 'preload', 'hooks', 'tuner']
allowed = [re.compile(r'^hooks/opencl[^/]*$'), re.compile(r'^tuner/exec_opencl[^/]*$')]
cuda_allowed = [re.compile(r'^hooks/cublas[^/]*$'), re.compile(r'^tuner/exec_(cublas|gemm)[^/]*$')]
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
pattern = re.compile(r'<CL/|"CL/|\bcl_[a-z][a-z0-9_]*\b|\bCL_[A-Z][A-Z0-9_]*\b|\bcl[A-Z][A-Za-z0-9]*\b'
                     r'|libOpenCL')
cuda_include = re.compile(r'^\s*#\s*include\s*[<"](cuda[A-Za-z0-9_]*|cublas[A-Za-z0-9_]*)\.h[>"]', re.M)
string = re.compile(r'"(?:[^"\\\n]|\\.)*"')
cuda_pattern = re.compile(r'\bcu[A-Z][A-Za-z0-9_]*\b|\bcublas[A-Z][A-Za-z0-9_]*\b|\bCUBLAS(?:LT)?_[A-Z0-9_]+\b'
                          r'|\bCUDA_[A-Z0-9_]+\b|\bCU_[A-Z0-9_]+\b|\bCUresult\b|\bCUdevice\w*\b'
                          r'|\bcudaDataType\w*\b')
bad, files = [], 0
for top in folders:
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if not n.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, n), root)
            files += 1
            code = comment.sub(lambda m: '\n' * m.group(0).count('\n'), open(os.path.join(root, rel)).read())
            if not any(a.match(rel) for a in allowed):
                for i, line in enumerate(code.splitlines(), 1):
                    for hit in pattern.findall(line):
                        bad.append('%s:%d: %s' % (rel, i, hit))
            if not any(a.match(rel) for a in cuda_allowed):
                for m in cuda_include.finditer(code):
                    bad.append('%s:%d: %s.h' % (rel, code.count('\n', 0, m.start()) + 1, m.group(1)))
                bare = string.sub('""', code)
                for i, line in enumerate(bare.splitlines(), 1):
                    for hit in cuda_pattern.findall(line):
                        bad.append('%s:%d: %s' % (rel, i, hit))
for b in bad:
    print('runtime_confined:', b)
if files < 50:
    sys.exit('runtime_confined: only %d source files found' % files)
sys.exit(1 if bad else 0)
PY
}

check "$S"
echo "runtime_confined: OpenCL appears only in hooks/opencl* and tuner/exec_opencl*, CUDA only in hooks/cublas*, tuner/exec_cublas* and tuner/exec_gemm*"

mkdir -p "$T/src"
for d in core store jobs space preload hooks tuner launch; do
  [ -d "$S/$d" ] && cp -r "$S/$d" "$T/src/"
done
printf '#include <CL/cl.h>\nstatic cl_mem m; /* clFoo in a comment is fine */\n' >"$T/src/preload/planted.c"
printf '#include <cublasLt.h>\nstatic const char *s = "cublasLtMatmul in a message is fine";\nstatic int x = CUBLAS_STATUS_SUCCESS;\n' \
  >"$T/src/tuner/planted_cuda.c"
if check "$T/src" >"$T/out"; then
  echo "runtime_confined: a planted OpenCL use in preload/ was not reported" >&2
  exit 1
fi
grep -q 'preload/planted.c:1: <CL/' "$T/out" && grep -q 'preload/planted.c:2: cl_mem' "$T/out"
! grep -q clFoo "$T/out"
grep -q 'tuner/planted_cuda.c:1: cublasLt.h' "$T/out" && grep -q 'tuner/planted_cuda.c:3: CUBLAS_STATUS_SUCCESS' "$T/out"
! grep -q 'planted_cuda.c:2' "$T/out"
echo "runtime_confined: a planted use is reported, comments are not"
