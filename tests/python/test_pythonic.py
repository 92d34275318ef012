"""The Pythonic surface: paths as str or os.PathLike everywhere, one exception type printed as
loom.Error naming the Python keyword, a version, and docstrings on the public classes."""
import os
import pathlib
import subprocess
import sys

import pytest

import loom


def test_paths_may_be_pathlib_paths(sbm, sbm_parts):
    assert loom.GraphStore(pathlib.Path(sbm)).num_nodes == 1200
    assert loom.PartitionedStore(pathlib.Path(sbm_parts)).num_parts == 2
    assert len(loom.Loader(pathlib.Path(sbm), fanouts=[5, 5])) > 0


def test_errors_are_loom_errors_naming_the_keyword(sbm):
    with pytest.raises(loom.Error) as caught:
        loom.Loader(sbm, fanouts=[10, 5], batch_size=0)
    assert "batch_size" in str(caught.value) and "--" not in str(caught.value)
    # Every keyword the Loader checks is named as the caller wrote it, not by `loom train`'s flag.
    for keywords, named in [
        ({"controller": "periodic", "prefetch": 0.1, "lookahead": -1}, "argument lookahead:"),
        ({"threads": -2}, "argument threads:"),
        ({"eval_fanouts": [0]}, "argument eval_fanouts:"),
        ({"pipeline_depth": -1}, "argument pipeline_depth:"),
    ]:
        with pytest.raises(loom.Error, match=named):
            loom.Loader(sbm, fanouts=[10, 5], **keywords)
    assert issubclass(loom.AgreedError, loom.Error) and issubclass(loom.Error, RuntimeError)
    done = subprocess.run(
        [sys.executable, "-c", f"import loom; loom.Loader({sbm!r}, fanouts=[0])"], capture_output=True, text=True
    )
    assert (
        done.returncode == 1 and "\nloom.AgreedError: " in done.stderr or "\nloom.Error: " in done.stderr
    ), done.stderr


def test_version_and_docstrings():
    assert loom.__version__.count(".") == 2
    for public in (loom.Loader, loom.GraphStore, loom.PartitionedStore, loom.Batch, loom.Block, loom.from_pyg):
        assert public.__doc__ and len(public.__doc__) > 20, public


def test_the_type_stubs_are_current(tmp_path):
    root = pathlib.Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, str(root / "scripts" / "python_stubs.py"), str(tmp_path / "_loom.pyi")],
        check=True,
        env=dict(os.environ),
    )
    assert (tmp_path / "_loom.pyi").read_text() == (
        root / "python" / "loom" / "_loom.pyi"
    ).read_text(), "python/loom/_loom.pyi is stale: run scripts/python_stubs.py"


def test_cache_memory_is_a_size_named_when_bad(sbm):
    with pytest.raises(loom.Error, match="cache_memory"):
        loom.Loader(sbm, fanouts=[2], batch_size=8, cache="vip", cache_memory="lots")
    with pytest.raises(loom.Error, match="cache_memory: sizes the cache in bytes where alpha"):
        loom.Loader(sbm, fanouts=[2], batch_size=8, cache="vip", alpha=0.1, cache_memory="8K")
