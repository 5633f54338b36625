#!/usr/bin/env bash
# Every C source and header follows .clang-format.
set -euo pipefail
cd "$AOE_SOURCE_DIR"
command -v clang-format >/dev/null || { echo "clang-format is not installed"; exit 1; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
[ -n "$files" ] || { echo "no sources found"; exit 1; }
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
echo "format: $(echo "$files" | wc -w) files follow .clang-format"
