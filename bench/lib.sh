# bench/lib.sh: what every bench/bench_*.sh shares. Sourced, not run, right after the script's `set` line:
#   source "$(dirname "$0")/lib.sh"
# It moves to the repository root (relative paths are from there) and sets
#   loom    the loom binary: $LOOM, else build/loom (absolute)
#   data    the shared data folder: $LOOM_DATA (or DATA, its older name), else ../shared/data (absolute if present)
#   python  the Python of the peers and reports: $LOOM_PYTHON, else /usr/bin/python3
# The require_* functions below print what is missing and return non-zero; the script decides whether
# that ends it (`require_loom || exit 1`) or skips a part (`require_python_modules gensim || peer=0`).
# shellcheck shell=bash

caller_dir=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
bench=$(basename "$0" .sh)
loom=${LOOM:-build/loom}
[[ $loom == /* ]] || loom=$PWD/$loom
data=${LOOM_DATA:-${DATA:-../shared/data}}
if [[ -d $data ]]; then data=$(cd "$data" && pwd); fi
python=${LOOM_PYTHON:-/usr/bin/python3}

# use_build_dir [DIR]: for the scripts that take BUILD_DIR as an argument: DIR/loom, DIR relative to
# where the script was started; no DIR keeps $loom.
use_build_dir() {
  if [[ -n ${1:-} ]]; then loom=$(cd "$caller_dir" && realpath -m -- "$1/loom"); fi
}

# require_loom: $loom is built.
require_loom() {
  [[ -x $loom ]] && return
  echo "$bench: no loom binary at $loom (build it: scripts/setup, or set LOOM)" >&2
  return 1
}

# require_data PATH...: every PATH (a file or folder under $data) exists.
require_data() {
  local path status=0
  for path; do
    [[ -e $path ]] || { echo "$bench: skipped, no $path (set LOOM_DATA)" >&2; status=1; }
  done
  return $status
}

# require_python_modules MODULE...: $python imports every MODULE. A missing one is installed from
# Debian's python3-MODULE (quietly) when running as root where apt-get exists, else named.
require_python_modules() {
  local module package status=0
  local -x DEBIAN_FRONTEND=noninteractive
  for module; do
    "$python" -c "import $module" 2> /dev/null && continue
    package=python3-${module//_/-}
    if ((EUID == 0)) && command -v apt-get > /dev/null; then
      echo "$bench: installing $package" >&2
      { apt-get install -y -qq "$package" || { apt-get update -qq && apt-get install -y -qq "$package"; }; } \
        > /dev/null 2>&1 < /dev/null
      "$python" -c "import $module" 2> /dev/null && continue
    fi
    echo "$bench: skipped: python module $module missing (apt-get install $package)" >&2
    status=1
  done
  return $status
}
