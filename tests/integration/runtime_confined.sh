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
allowed = [re.compile(r'^hooks/opencl[^/]*$'), re.compile(r'^tuner/exec_opencl[^/]*$')]
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
pattern = re.compile(r'<CL/|"CL/|\bcl_[a-z][a-z0-9_]*\b|\bCL_[A-Z][A-Z0-9_]*\b|\bcl[A-Z][A-Za-z0-9]*\b'
                     r'|libOpenCL')
bad, files = [], 0
for top in folders:
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if not n.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, n), root)
            files += 1
            if any(a.match(rel) for a in allowed):
                continue
            code = comment.sub(lambda m: '\n' * m.group(0).count('\n'), open(os.path.join(root, rel)).read())
            for i, line in enumerate(code.splitlines(), 1):
                for hit in pattern.findall(line):
                    bad.append('%s:%d: %s' % (rel, i, hit))
for b in bad:
    print('runtime_confined:', b)
if files < 50:
    sys.exit('runtime_confined: only %d source files found' % files)
sys.exit(1 if bad else 0)
PY
}

check "$S"
echo "runtime_confined: OpenCL appears only in hooks/opencl* and tuner/exec_opencl*"

mkdir -p "$T/src"
for d in core store jobs space preload hooks tuner launch; do
  [ -d "$S/$d" ] && cp -r "$S/$d" "$T/src/"
done
printf '#include <CL/cl.h>\nstatic cl_mem m; /* clFoo in a comment is fine */\n' >"$T/src/preload/planted.c"
if check "$T/src" >"$T/out"; then
  echo "runtime_confined: a planted OpenCL use in preload/ was not reported" >&2
  exit 1
fi
grep -q 'preload/planted.c:1: <CL/' "$T/out" && grep -q 'preload/planted.c:2: cl_mem' "$T/out"
! grep -q clFoo "$T/out"
echo "runtime_confined: a planted use is reported, comments are not"
