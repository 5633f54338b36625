#!/usr/bin/env bash
# The README's table of environment variables is `aoe config --markdown`, and
# a bad value in the environment makes `aoe config` fail with one message.
set -euo pipefail
aoe="$AOE_BUILD_DIR/bin/aoe"
table=$("$aoe" config --markdown)
readme=$(sed -n '/<!-- config-table -->/,/<!-- \/config-table -->/p' "$AOE_SOURCE_DIR/README.md" | sed '1d;$d')
if [ "$table" != "$readme" ]; then
  echo "README's configuration table differs from 'aoe config --markdown':"
  diff <(echo "$readme") <(echo "$table") || true
  exit 1
fi
out=$(AOE_TUNE_MODE=sometimes "$aoe" config 2>&1 >/dev/null) && { echo "bad value accepted"; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "expected one line, got: $out"; exit 1; }
echo "$out" | grep -q 'AOE_TUNE_MODE="sometimes" is not one of online|offline|off' || { echo "unclear: $out"; exit 1; }
REPEAT_TUNE=TRUE "$aoe" config --json | grep -q '"source":	"environment"' || { echo "source not reported"; exit 1; }
echo "readme_config: ok"
