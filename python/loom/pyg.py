"""PyG interop: loom.from_pyg(data, path) writes a Loom graph store from an in-memory
torch_geometric.data.Data (or any object with the same attributes): x, edge_index, y and the
train/val/test masks, through `loom import npy` (so the store is checked and digested like any
imported one). Batches give PyG's view themselves: batch.edge_index, batch.n_id,
batch.batch_size and batch.to_pyg()."""
import os
import tempfile
import warnings

import numpy as np
import torch

from . import _loom
from .commands import import_graph

_SPLITS = {"train_mask": "train_idx.npy", "val_mask": "valid_idx.npy", "test_mask": "test_idx.npy"}
_KEPT = {"edge_index", "edge_weight", "x", "y", "num_nodes", *_SPLITS}


def _attribute_names(data):
    """The attributes a PyG Data holds (keys() is a method in PyG 2.4, a property before)."""
    keys = getattr(data, "keys", None)
    if keys is None:
        return []
    return list(keys() if callable(keys) else keys)


def _refuse_heterogeneous(data):
    node_types = getattr(data, "node_types", None)
    if node_types is not None and getattr(data, "edge_types", None) is not None:
        raise _loom.Error(
            f"from_pyg: a HeteroData (node types {', '.join(map(str, node_types))}) is not read: Loom's stores "
            "hold one node and one edge type; convert it first with data.to_homogeneous()"
        )


def _warn_unkept(data):
    unkept = sorted(name for name in _attribute_names(data) if name not in _KEPT)
    if unkept:
        warnings.warn(
            f"from_pyg: {', '.join(unkept)} not stored (a Loom store holds x, edge_index, edge_weight, y and "
            "the train/val/test masks)",
            stacklevel=3,
        )


def _array(value, name):
    if not isinstance(value, torch.Tensor):
        raise _loom.Error(f"from_pyg: data.{name} must be a torch.Tensor, got {type(value).__name__}")
    return value.detach().cpu().contiguous().numpy()


def _save_sparse_rows(x, path):
    """A sparse torch x (COO or CSR, 2-D) as SciPy's save_npz writes a csr_matrix: what `loom import
    npy` reads as feat.npz, row by row, without widening it."""
    if x.dim() != 2:
        raise _loom.Error(f"from_pyg: a sparse data.x must be 2-D, got shape {list(x.shape)}")
    csr = x.detach().cpu().coalesce().to_sparse_csr() if x.layout == torch.sparse_coo else x.detach().cpu()
    if csr.layout != torch.sparse_csr:
        csr = csr.to_dense().to_sparse_csr()  # other layouts (CSC, BSR): through dense, as torch offers
    np.savez(
        path,
        indptr=csr.crow_indices().numpy().astype(np.int64),
        indices=csr.col_indices().numpy().astype(np.int64),
        data=csr.values().numpy().astype(np.float32),
        shape=np.array(csr.shape, dtype=np.int64),
        format=np.array("csr"),
    )


def from_pyg(data, path, directed=False, overwrite=False, **options):
    """Writes `data` as the store `path` and returns its GraphStore. edge_index [2, E] is read as
    source -> target pairs; undirected graphs (directed=False, PyG's usual form, both directions
    listed) are stored once per direction, as `loom import` does; edge_weight (one float per edge)
    is kept as the store's edge weights. x becomes the features
    (float32 or float16 kept; a sparse x, COO or CSR, is stored in the sparse feature layout, as
    feature_layout="sparse" asks of any x), y the labels (1-D class ids, -1 unlabelled, or a 2-D 0/1
    multi-label matrix), and 1-D boolean train_mask / val_mask / test_mask the splits; any other
    attribute (edge_attr, pos, ...) is named in a warning, and a HeteroData is an
    error. Other keyword options are `loom import npy`'s (e.g. build_memory="2G")."""
    _refuse_heterogeneous(data)
    edge_index = getattr(data, "edge_index", None)
    if edge_index is None or edge_index.dim() != 2 or edge_index.size(0) != 2:
        raise _loom.Error("from_pyg: data.edge_index must be an integer tensor of shape [2, E]")
    num_nodes = getattr(data, "num_nodes", None)
    parent = os.path.dirname(os.path.abspath(os.fspath(path)))
    os.makedirs(parent, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".from_pyg-", dir=parent) as arrays:
        edges = _array(edge_index, "edge_index").astype(np.int64, copy=False)
        np.save(os.path.join(arrays, "src.npy"), edges[0])
        np.save(os.path.join(arrays, "dst.npy"), edges[1])
        weight = getattr(data, "edge_weight", None)
        if weight is not None:
            weight = _array(weight, "edge_weight")
            if weight.shape != (edges.shape[1],):
                raise _loom.Error(
                    f"from_pyg: data.edge_weight must hold one value per edge ({edges.shape[1]}), got "
                    f"shape {list(weight.shape)}"
                )
            np.save(os.path.join(arrays, "weight.npy"), weight.astype(np.float32))
        if getattr(data, "x", None) is not None:
            x = data.x
            if isinstance(x, torch.Tensor) and x.layout != torch.strided:  # sparse x: a sparse store, never widened
                _save_sparse_rows(x, os.path.join(arrays, "feat.npz"))
                if x.dtype == torch.float16:
                    options.setdefault("feat_dtype", "float16")
            else:
                x = _array(x, "x")
                if x.dtype == np.float16:
                    options.setdefault("feat_dtype", "float16")  # kept as it is, not widened
                np.save(
                    os.path.join(arrays, "feat.npy"),
                    x if x.dtype in (np.float16, np.float32) else x.astype(np.float32),
                )
        if getattr(data, "y", None) is not None:
            y = _array(data.y, "y")
            np.save(os.path.join(arrays, "label.npy"), y.reshape(-1) if y.ndim == 2 and y.shape[1] == 1 else y)
        for mask, file in _SPLITS.items():
            value = getattr(data, mask, None)
            if value is None:
                continue
            if value.dim() != 1 or value.dtype != torch.bool:
                raise _loom.Error(
                    f"from_pyg: data.{mask} must be a 1-D bool tensor (one split), got "
                    f"{value.dtype} of shape {list(value.shape)}"
                )
            np.save(os.path.join(arrays, file), value.nonzero().view(-1).cpu().numpy())
        store = import_graph(
            "npy", arrays, os.fspath(path), num_nodes=num_nodes, directed=directed, overwrite=overwrite, **options
        )
    _warn_unkept(data)
    return store
