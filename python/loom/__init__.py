"""Loom from Python: Loom's graph stores, mini-batch data path (sampling, caches, prefetching,
pipelined remote feature fetch), aggregation kernels and layers, and counted communication, for
models written in PyTorch. The same C++ library as the `loom` command runs underneath.

    import loom, torch
    loader = loom.Loader("facebook", fanouts=[15, 10, 5], batch_size=1024)
    model = loom.nn.GraphSAGE(loader.feat_dim, 256, loader.num_classes, num_layers=3)
    for batch in loader.epoch(0):
        loss = torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y)

Under `mpirun -np K python3 script.py` each rank loads its part of a K-way partitioned store;
loom.comm gives the rank, gradient all-reduce and the per-channel byte counters, and an
exception on one rank ends every rank with its message (as the CLI does).
`python3 -m loom.report RUN.jsonl ... -o report.html` draws runs' metrics.
"""
import sys as _sys

from . import _blas

_blas.prefer_openmp_openblas()  # before torch loads a BLAS (see _blas.py)

import torch as _torch  # noqa: E402 (LibTorch's Python bindings must be loaded before the extension)

from . import _loom
from ._loom import AgreedError, Batch, Block, Error, GraphStore, PartitionedStore, comm, embed, ops
from ._loom import __version__, set_log_level
from ._loom import eval  # noqa: A004 (loom.eval: the evaluations of `loom eval`)
from .commands import calibrate_cluster, generate, import_graph, partition, plan, plan_fullgraph, run
from .loader import LinkLoader, Loader
from .pyg import from_pyg
from . import nn

for _public in (AgreedError, Batch, Block, Error, GraphStore, PartitionedStore):
    _public.__module__ = "loom"  # tracebacks and help() name loom.Error, not loom._loom.Error

__all__ = [
    "AgreedError",
    "Batch",
    "Block",
    "Error",
    "GraphStore",
    "LinkLoader",
    "Loader",
    "PartitionedStore",
    "calibrate_cluster",
    "comm",
    "embed",
    "eval",
    "from_pyg",
    "generate",
    "import_graph",
    "nn",
    "ops",
    "partition",
    "plan",
    "plan_fullgraph",
    "run",
    "set_log_level",
]


def _end_every_rank(kind, value, traceback):
    """Under mpirun, an uncaught exception on one rank would leave the others blocked in a
    collective: print it and end the whole job instead. An AgreedError was raised by every rank
    together: rank 0 prints it once, as the CLI does, and every rank exits with status 1."""
    if issubclass(kind, AgreedError):
        if _loom.comm.rank() == 0:
            print(f"loom: error: {value}", file=_sys.stderr, flush=True)
        _loom.comm.barrier()  # the line is out before any rank exits
        return
    _previous_hook(kind, value, traceback)
    if _loom.comm.size() > 1:
        _loom.comm.abort(f"{kind.__name__}: {value}")


_previous_hook = _sys.excepthook
if any(name in __import__("os").environ for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")):
    _sys.excepthook = _end_every_rank
