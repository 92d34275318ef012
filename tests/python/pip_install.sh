#!/usr/bin/env bash
# ctest's python.pip_install: `pip install --no-build-isolation --no-index .` into a fresh virtual
# environment with the system's site packages (Debian's python3-torch), building in the ctest
# build tree (LOOM_BUILD_DIR: nothing to rebuild); then `import loom` from that environment, away
# from the sources, finds the installed package, its version is CMake's and pyproject's, and a
# loader trains a step; and the environment's `loom` command runs the CLI and names its errors. usage: pip_install.sh PYTHON BUILD_DIR LOOM
set -euo pipefail
python=$1 build=$2 loom=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" -m venv --system-site-packages "$dir/venv"
LOOM_BUILD_DIR=$build "$dir/venv/bin/pip" install --no-build-isolation --no-index -q "$root" > "$dir/pip.log" 2>&1 ||
  { echo "pip install failed:" >&2; cat "$dir/pip.log" >&2; exit 1; }
"$loom" --log-level warn generate sbm -o "$dir/sbm" --nodes 300 --classes 3 --avg-degree 8 --feat-dim 8 --seed 1
cmake_version=$(sed -n 's/^project(loom VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
pyproject_version=$(sed -n 's/^version = "\([0-9.]*\)".*/\1/p' "$root/pyproject.toml")
cd "$dir"
env -u PYTHONPATH "$dir/venv/bin/python" - "$dir" "$cmake_version" "$pyproject_version" <<'PY'
import sys
import loom, torch
where, cmake_version, pyproject_version = sys.argv[1:4]
assert loom.__file__.startswith(where + "/venv/"), loom.__file__
assert loom.__version__ == cmake_version == pyproject_version, (loom.__version__, cmake_version, pyproject_version)
loader = loom.Loader(where + "/sbm", fanouts=[5, 5], batch_size=32)
model = loom.nn.GraphSAGE(loader.feat_dim, 8, loader.num_classes, num_layers=2)
batch = next(iter(loader))
torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y).backward()
print(f"installed loom {loom.__version__} at {loom.__file__}")
PY
# The install's `loom` command: the CLI, with its output and its errors.
"$dir/venv/bin/loom" info "$dir/sbm" | grep "nodes: *300" > /dev/null || { echo "venv's loom info failed" >&2; exit 1; }
if "$dir/venv/bin/loom" info "$dir/absent" 2> "$dir/err"; then echo "venv's loom info of no store exited 0" >&2; exit 1; fi
grep -q "absent" "$dir/err" || { echo "venv's loom did not name the missing store:" >&2; cat "$dir/err" >&2; exit 1; }
