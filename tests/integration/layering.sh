#!/usr/bin/env bash
# The include matrix of docs/design.md holds: every #include "folder/..." in a
# source folder names a folder that folder may include, and every folder with
# C sources appears in the matrix. Also checks that the checker catches a
# planted violation (so the test cannot pass by reading nothing).
set -euo pipefail
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # check SOURCE_ROOT: prints violations, exit 1 if any
  python3 - "$1" "$S/docs/design.md" <<'PY'
import os, re, sys
root, design = sys.argv[1], sys.argv[2]
text = open(design).read()
m = re.search(r'<!-- include-matrix -->(.*?)<!-- /include-matrix -->', text, re.S)
if not m:
    sys.exit('layering: no include matrix in docs/design.md')
allowed = {}
for line in m.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if len(cells) == 2 and cells[0] not in ('folder', '') and not cells[0].startswith('-'):
        allowed[cells[0]] = set(cells[1].split())
if len(allowed) < 5:
    sys.exit('layering: the include matrix has %d rows' % len(allowed))
inc = re.compile(r'^\s*#\s*include\s*"([^"/]+)/[^"]+"', re.M)
bad, files = [], 0
for top in sorted(os.listdir(root)):
    d = os.path.join(root, top)
    if top.startswith('.') or top in ('tests', 'scripts', 'docs', 'etc') or top.startswith('build') \
            or not os.path.isdir(d):
        continue
    for dirpath, _, names in os.walk(d):
        for n in names:
            if not n.endswith(('.c', '.h')):
                continue
            files += 1
            path = os.path.join(dirpath, n)
            rel = os.path.relpath(path, root)
            if top not in allowed:
                bad.append('%s: folder %s/ is not in the include matrix' % (rel, top))
                continue
            for target in inc.findall(open(path, errors='replace').read()):
                if target not in allowed[top]:
                    bad.append('%s includes %s/ (%s/ may include: %s)'
                               % (rel, target, top, ' '.join(sorted(allowed[top]))))
for b in bad:
    print('layering:', b)
if files < 50:
    sys.exit('layering: only %d source files found under %s' % (files, root))
sys.exit(1 if bad else 0)
PY
}

check "$S"
echo "layering: every #include follows the matrix"

# The checker must see a planted violation: a copy of store/ including preload/.
mkdir -p "$T/src"
for d in core store jobs space preload hooks tuner launch; do
  [ -d "$S/$d" ] && cp -r "$S/$d" "$T/src/"
done
printf '#include "preload/shim.h"\n' >"$T/src/store/planted.c"
if check "$T/src" >"$T/out"; then
  echo "layering: a planted store/ -> preload/ include was not reported" >&2
  exit 1
fi
grep -q 'store/planted.c includes preload/' "$T/out"
echo "layering: a planted violation is reported"
