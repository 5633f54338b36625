# Sourced by the scripts under scripts/ (not a script itself).
# aoe_help "$@": with -h or --help first, prints the script's leading comment
# (its manual) and exits 0. aoe_no_options "$@": the same, and any other
# argument that begins with '-' is one message and exit 2 (for the scripts
# whose arguments are positional: a mistyped option must not start a long run).
aoe_help() {
  case "${1:-}" in
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
  esac
}
aoe_no_options() {
  aoe_help "$@"
  local a
  for a in "$@"; do
    case $a in
      -*)
        echo "${0##*/}: unknown option '$a' (see $0 --help)" >&2
        exit 2
        ;;
    esac
  done
}
