"""setuptools' side of `pip install .` (pyproject.toml has the metadata): the extension loom._loom
is CMake's target loom_python, configured with this Python (so against the torch it imports) and
built with Ninja; the pure-Python modules come from python/loom. LOOM_BUILD_DIR names an existing
CMake build tree to build in (e.g. ./build, already configured: only what changed is rebuilt)
instead of a fresh one under setuptools' build folder, which is outside the checkout (in the
system's temporary folder, one per checkout): an install leaves nothing in the source tree."""
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("LOOM_BUILD_DIR") or pathlib.Path(self.build_temp).resolve() / "cmake")
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(
                [
                    "cmake",
                    "-S",
                    str(ROOT),
                    "-B",
                    str(build),
                    "-G",
                    "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release",
                    f"-DPython3_EXECUTABLE={sys.executable}",
                ],
                check=True,
            )
        subprocess.run(
            ["cmake", "--build", str(build), "--target", "loom_python", "-j", str(os.cpu_count() or 1)], check=True
        )
        built = sorted((build / "python" / "loom").glob("_loom*.so"))
        if not built:
            sys.exit(
                f"setup.py: CMake built no extension under {build / 'python' / 'loom'} (is python3-torch installed?)"
            )
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


# setuptools' own build folders (and the fresh CMake tree under them) go outside the checkout, one
# per checkout, kept so that a second install rebuilds only what changed.
BUILD_BASE = pathlib.Path(tempfile.gettempdir()) / f"loom-pip-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]}"
BUILD_BASE.mkdir(parents=True, exist_ok=True)
setup(
    ext_modules=[Extension("loom._loom", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}},
)
