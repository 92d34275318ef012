"""loom.GraphStore / PartitionedStore: arrays as tensors viewing the store's files, the same
values numpy reads, writes that never reach the file, and errors with the CLI's messages."""
import os
import types

import numpy as np
import pytest
import torch

import loom


def test_store_arrays_are_the_files_values(sbm):
    store = loom.GraphStore(sbm)
    assert store.num_nodes == 1200 and store.feat_dim == 16 and store.num_classes == 4
    np.testing.assert_array_equal(store.indptr.numpy(), np.load(os.path.join(sbm, "indptr.npy")))
    np.testing.assert_array_equal(store.indices.numpy(), np.load(os.path.join(sbm, "indices.npy")))
    np.testing.assert_array_equal(store.features.numpy(), np.load(os.path.join(sbm, "feat.npy")))
    assert store.labels.dtype == torch.int64 and store.labels.shape == (1200,)
    assert set(store.splits) == {"train", "valid", "test"}
    assert int(store.split("train").max()) < 1200
    edge_index = store.edge_index()
    assert edge_index.shape == (2, store.num_edges)
    assert torch.equal(torch.bincount(edge_index[1], minlength=1200), store.indptr[1:] - store.indptr[:-1])


def test_tensors_outlive_the_store_and_writes_stay_private(sbm):
    features = loom.GraphStore(sbm).features  # the store object is gone at once
    before = np.load(os.path.join(sbm, "feat.npy"))[0, 0]
    features[0, 0] = 1234.5  # a private copy of the page, not the file
    assert features[0, 0].item() == 1234.5
    assert np.load(os.path.join(sbm, "feat.npy"))[0, 0] == before
    assert loom.GraphStore(sbm).features[0, 0].item() == before


def test_partitioned_store_parts_cover_the_graph(sbm_parts):
    parts = loom.PartitionedStore(sbm_parts)
    assert parts.num_parts == 2 and parts.num_nodes == 1200
    offsets = parts.node_offsets.tolist()
    assert offsets[0] == 0 and offsets[-1] == 1200
    assert sum(parts.part(k).num_nodes for k in range(2)) == 1200
    assert parts.topology.num_nodes == 1200
    with pytest.raises(loom.Error, match="part 2 outside 0..1"):
        parts.part(2)


def test_bad_input_raises_loom_error_with_the_cli_message(tmp_path):
    with pytest.raises(loom.Error, match=str(tmp_path / "missing")):
        loom.GraphStore(str(tmp_path / "missing"))
    assert issubclass(loom.Error, RuntimeError)


def test_a_store_with_a_flipped_byte_is_refused_unless_verify_is_off(tmp_path):
    loom.generate("sbm", str(tmp_path / "g"), nodes=200, classes=2, avg_degree=4, feat_dim=4, seed=2)
    feat = tmp_path / "g" / "feat.npy"
    data = bytearray(feat.read_bytes())
    data[-1] ^= 0x40
    feat.write_bytes(bytes(data))
    with pytest.raises(loom.Error, match="feat.npy: digest"):
        loom.GraphStore(str(tmp_path / "g"))
    assert loom.GraphStore(str(tmp_path / "g"), verify=False).num_nodes == 200


def test_run_refuses_an_eval_batch_size_of_zero_raising_loom_error(sbm):
    with pytest.raises(loom.Error, match="--eval-batch-size"):
        loom.run(["train", sbm, "--epochs", "1", "--eval-batch-size", "0"])


def test_generate_import_partition_run_the_cli_commands(tmp_path):
    g = loom.generate("sbm", str(tmp_path / "g"), nodes=300, classes=3, avg_degree=6, feat_dim=4, seed=2)
    assert g.num_nodes == 300 and g.feat_dim == 4 and g.num_classes == 3
    edges = tmp_path / "edges.txt"
    edges.write_text("# a triangle and a tail\n10 20\n20 30\n30 10\n30 40\n")
    tail = loom.import_graph("edgelist", str(edges), str(tmp_path / "tail"))
    assert tail.num_nodes == 4 and sorted(tail.original_ids.tolist()) == [10, 20, 30, 40]
    parts = loom.partition(str(tmp_path / "g"), str(tmp_path / "g-2"), k=2, method="metis")
    assert parts.num_parts == 2 and sum(parts.part(k).num_nodes for k in range(2)) == 300


def test_commands_raise_the_cli_messages(tmp_path):
    with pytest.raises(loom.Error, match="avg_degree is required"):
        loom.generate("sbm", str(tmp_path / "g"), nodes=10, classes=2, feat_dim=2)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3\n")
    with pytest.raises(loom.Error, match=f"{bad}:2"):
        loom.import_graph("edgelist", str(bad), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()  # nothing half-written
    with pytest.raises(loom.Error, match="missing: not a directory"):
        loom.partition(str(tmp_path / "missing"), str(tmp_path / "p"), k=0)


def test_sparse_features_from_pyg_and_back(tmp_path):
    n, dim = 30, 50
    ring = torch.arange(n)
    dense = torch.zeros(n, dim)
    dense[ring, ring % dim] = 1.0
    dense[ring, (ring * 7 + 3) % dim] = 0.5
    data = types.SimpleNamespace(
        edge_index=torch.stack([ring, (ring + 1) % n]),
        x=dense.to_sparse_csr(),
        y=ring % 3,
        num_nodes=n,
        keys=lambda: ["edge_index", "x", "y", "num_nodes"],
    )
    store = loom.from_pyg(data, tmp_path / "sparse")
    features = store.features
    assert features.layout == torch.sparse_csr and features.shape == (n, dim)
    assert torch.equal(features.to_dense(), dense)
    data.x = dense  # asked for: the same store from dense rows
    assert loom.from_pyg(data, tmp_path / "asked", feature_layout="sparse").features.layout == torch.sparse_csr
    loader = loom.Loader(tmp_path / "sparse", fanouts=[3], batch_size=8, input_nodes=torch.ones(n, dtype=torch.bool))
    loader.set_epoch(0)
    batch = next(iter(loader))
    # Batches carry the rows sparse (never widened), standing for the dense rows.
    assert batch.x.layout == torch.sparse_csr
    assert torch.equal(batch.x.to_dense(), dense[batch.input_nodes])


def test_from_pyg_keeps_edge_weights(tmp_path):
    n = 6
    ring = torch.arange(n)
    edge_index = torch.stack([ring, (ring + 1) % n])
    data = types.SimpleNamespace(
        edge_index=edge_index,
        edge_weight=torch.arange(1.0, n + 1),
        num_nodes=n,
        keys=lambda: ["edge_index", "edge_weight", "num_nodes"],
    )
    store = loom.from_pyg(data, tmp_path / "weighted")  # undirected: each edge stored both ways, with its weight
    weight_of = dict(zip(map(tuple, store.edge_index().t().tolist()), store.edge_weight.tolist()))
    assert weight_of == {
        **{(i, (i + 1) % n): float(i + 1) for i in range(n)},
        **{((i + 1) % n, i): float(i + 1) for i in range(n)},
    }
    assert (
        loom.from_pyg(types.SimpleNamespace(edge_index=edge_index, num_nodes=n), tmp_path / "plain").edge_weight is None
    )
    data.edge_weight = torch.ones(n + 1)
    with pytest.raises(loom.Error, match="edge_weight must hold one value per edge"):
        loom.from_pyg(data, tmp_path / "bad")


def _sparse_feature_arrays(path, indptr, indices, data, shape, **extra):
    """A directory import npy reads: a 4-node ring and feat.npz as SciPy's save_npz writes it."""
    path.mkdir()
    ring = np.arange(4)
    np.save(path / "src.npy", ring)
    np.save(path / "dst.npy", (ring + 1) % 4)
    np.save(path / "label.npy", ring % 2)
    np.savez(
        path / "feat.npz",
        indptr=np.array(indptr),
        indices=np.array(indices),
        data=np.array(data, np.float32),
        shape=np.array(shape),
        format=np.array("csr"),
        **extra,
    )
    return path


def test_scipy_sparse_features_are_imported_sparse(tmp_path):
    # Row 1's columns out of order with a duplicate (summed, as SciPy reads it) and an explicit zero (dropped).
    arrays = _sparse_feature_arrays(
        tmp_path / "arrays", [0, 1, 5, 5, 6], [2, 4, 0, 4, 3, 1], [1.0, 0.5, 2.0, 0.25, 0.0, 3.0], [4, 6]
    )
    expected = torch.zeros(4, 6)
    expected[0, 2], expected[1, 0], expected[1, 4], expected[3, 1] = 1.0, 2.0, 0.75, 3.0
    store = loom.import_graph("npy", str(arrays), str(tmp_path / "sparse"))
    assert store.features.layout == torch.sparse_csr  # a sparse source stays sparse unless asked dense
    assert torch.equal(store.features.to_dense(), expected)
    assert store.features.values().numel() == 4
    dense = loom.import_graph("npy", str(arrays), str(tmp_path / "dense"), feature_layout="dense")
    assert dense.features.layout == torch.strided and torch.equal(dense.features, expected)


@pytest.mark.parametrize(
    "indptr, indices, shape, extra, message",
    [
        ([0, 1, 1, 1, 1], [9], [4, 6], {}, "column 9, outside"),
        ([0, 1, 1, 1], [0], [4, 6], {}, "4 offsets for 4 rows"),
        ([0, 1, 1, 1, 1], [0], [5, 6], {}, "5 offsets for 5 rows"),
    ],
)
def test_bad_scipy_sparse_features_are_named(tmp_path, indptr, indices, shape, extra, message):
    arrays = _sparse_feature_arrays(tmp_path / "arrays", indptr, indices, [1.0] * len(indices), shape, **extra)
    with pytest.raises(loom.Error, match="feat.npz") as error:
        loom.import_graph("npy", str(arrays), str(tmp_path / "out"))
    assert message in str(error.value)
    assert not (tmp_path / "out").exists()


def test_a_coo_feat_npz_is_named(tmp_path):
    arrays = tmp_path / "arrays"
    arrays.mkdir()
    np.save(arrays / "src.npy", np.arange(3))
    np.save(arrays / "dst.npy", np.array([1, 2, 0]))
    np.savez(
        arrays / "feat.npz",
        row=np.array([0]),
        col=np.array([1]),
        data=np.array([1.0]),
        shape=np.array([3, 2]),
        format=np.array("coo"),
    )
    with pytest.raises(loom.Error, match="not a SciPy CSR matrix"):
        loom.import_graph("npy", str(arrays), str(tmp_path / "out"))


def test_scipy_save_npz_is_read_as_written(tmp_path):
    sparse = pytest.importorskip("scipy.sparse")
    matrix = sparse.random(30, 40, density=0.1, format="csr", dtype=np.float32, random_state=3)
    arrays = tmp_path / "arrays"
    arrays.mkdir()
    np.save(arrays / "src.npy", np.arange(30))
    np.save(arrays / "dst.npy", (np.arange(30) + 1) % 30)
    sparse.save_npz(arrays / "feat.npz", matrix)
    store = loom.import_graph("npy", str(arrays), str(tmp_path / "store"))
    assert torch.allclose(store.features.to_dense(), torch.from_numpy(matrix.toarray()))
