"""Fixtures of the Python tests: a small generated graph store (and its 2-way partition) made with
the `loom` binary that ctest names in $LOOM_BINARY (default: build/loom beside the sources)."""
import os
import subprocess

import pytest

import loom  # noqa: F401 (before any test imports torch: loom picks LibTorch's BLAS, loom/_blas.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOOM = os.environ.get("LOOM_BINARY", os.path.join(ROOT, "build", "loom"))


def loom_cli(*args):
    return subprocess.run([LOOM, "--log-level", "warn", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="session")
def sbm(tmp_path_factory):
    """A 1,200-node planted-partition graph with weak features: the graph has to help."""
    path = str(tmp_path_factory.mktemp("data") / "sbm")
    loom_cli(
        "generate",
        "sbm",
        "-o",
        path,
        "--nodes",
        "1200",
        "--classes",
        "4",
        "--avg-degree",
        "12",
        "--feat-dim",
        "16",
        "--seed",
        "3",
    )
    return path


@pytest.fixture(scope="session")
def sbm_parts(sbm, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("parts") / "sbm-2")
    loom_cli("partition", sbm, "-k", "2", "-o", path)
    return path
