"""Which OpenBLAS LibTorch computes with. Debian installs OpenBLAS in two flavours behind
update-alternatives and the pthreads one wins by priority; its spinning thread pool then fights
OpenMP's (LibTorch's and Loom's kernels') for the cores: on 2 cores Facebook's 3-layer SAGE epoch
takes 1.4x as long. The `loom` binary finds the OpenMP flavour through its RPATH
(cmake/LoomDependencies.cmake); in Python, `import torch` loads the library first, so loom loads
the OpenMP flavour before torch does: LibTorch's lookups of libblas.so.3 / liblapack.so.3 then
find it already loaded. Nothing changes when torch was imported first (a warning says so) or when
libopenblas0-openmp is not installed."""
import ctypes
import os
import sys
import sysconfig
import warnings

OPENMP_DIR = os.path.join("/usr/lib", sysconfig.get_config_var("MULTIARCH") or "", "openblas-openmp")


def loaded_libraries():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1] for line in maps if "/" in line}


def prefer_openmp_openblas():
    if not os.path.exists(os.path.join(OPENMP_DIR, "libblas.so.3")):
        return
    if "torch" in sys.modules:
        if any("openblas-pthread" in path for path in loaded_libraries()):
            warnings.warn(
                "torch was imported before loom, with the pthreads OpenBLAS, whose threads compete with "
                "OpenMP's (slower epochs): import loom first",
                RuntimeWarning,
                stacklevel=3,
            )
        return
    for name in ("libopenblas.so.0", "libblas.so.3", "liblapack.so.3"):
        ctypes.CDLL(os.path.join(OPENMP_DIR, name), mode=ctypes.RTLD_GLOBAL)
