"""PyG interop, against the PyG in ../shared/peers/pyg (LOOM_PYG; skipped where it is absent):
batches expose NeighborLoader's view (edge_index, n_id, batch_size, per-hop counts, .to(),
.to_pyg()), stock PyG models train on them unchanged, and loom.from_pyg writes a store from an
in-memory Data."""
import os
import sys

import pytest
import torch

import loom

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYG = os.environ.get("LOOM_PYG", os.path.join(ROOT, "..", "shared", "peers", "pyg"))
if os.path.isdir(PYG) and PYG not in sys.path:
    sys.path.append(PYG)  # after Debian's torch
pyg = pytest.importorskip("torch_geometric", reason=f"PyG is not at {PYG} (set LOOM_PYG)")
from torch_geometric.data import Data  # noqa: E402
from torch_geometric.nn import GATConv, GCNConv, SAGEConv  # noqa: E402


def test_edge_index_is_each_nodes_neighbourhood_from_the_hop_that_reached_it(sbm):
    fanouts = [6, 3]
    loader = loom.Loader(sbm, fanouts=fanouts, batch_size=50, seed=2)
    store = loom.GraphStore(sbm)
    degree = store.indptr[1:] - store.indptr[:-1]
    batch = next(iter(loader))
    n_id, edge_index = batch.n_id, batch.edge_index
    assert batch.batch_size == batch.num_seeds == 50 and torch.equal(n_id, batch.input_nodes)
    assert edge_index.shape == (2, sum(batch.num_sampled_edges)) and sum(batch.num_sampled_nodes) == n_id.numel()
    in_degree = torch.bincount(edge_index[1], minlength=n_id.numel())
    hop_end = torch.tensor(batch.num_sampled_nodes).cumsum(0).tolist()
    for local in range(n_id.numel()):
        hop = next(h for h, end in enumerate(hop_end) if local < end)
        want = min(fanouts[hop], int(degree[n_id[local]])) if hop < len(fanouts) else 0
        assert in_degree[local] == want, (local, hop)
    # Every edge is an edge of the graph, from source (row 0) to target (row 1).
    for s, t in edge_index.t().tolist()[:500]:
        target = int(n_id[t])
        assert int(n_id[s]) in store.indices[store.indptr[target] : store.indptr[target + 1]].tolist()
    data = batch.to_pyg()
    assert isinstance(data, Data) and data.batch_size == 50
    assert torch.equal(data.edge_index, edge_index) and torch.equal(data.x, batch.x) and torch.equal(data.n_id, n_id)
    moved = batch.to(torch.device("cpu"))
    assert torch.equal(moved.edge_index, edge_index) and len(moved.blocks) == 2


class StockModel(torch.nn.Module):
    """A PyG model as PyG's examples write it: forward(x, edge_index)."""

    def __init__(self, conv, in_dim, hidden, classes):
        super().__init__()
        self.convs = torch.nn.ModuleList([conv(in_dim, hidden), conv(hidden, classes)])

    def forward(self, x, edge_index):
        x = self.convs[0](x, edge_index).relu()
        return self.convs[1](x, edge_index)


@pytest.mark.parametrize("conv", [SAGEConv, GCNConv, GATConv], ids=lambda c: c.__name__)
def test_stock_pyg_models_train_on_loom_batches_unchanged(sbm, conv):
    torch.manual_seed(0)
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=128, seed=1)
    model = StockModel(conv, loader.feat_dim, 32, loader.num_classes)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(15):
        loader.set_epoch(epoch)
        for batch in loader:
            opt.zero_grad()
            out = model(batch.x, batch.edge_index)[: batch.batch_size]
            torch.nn.functional.cross_entropy(out, batch.y[: batch.batch_size]).backward()
            opt.step()
    assert loader.evaluate(model, "test", forward="edge_index")["accuracy"] > 0.85


def test_from_pyg_writes_the_data_as_a_store(tmp_path):
    torch.manual_seed(0)
    n = 40
    ring = torch.arange(n)
    edge_index = torch.stack([torch.cat([ring, (ring + 1) % n]), torch.cat([(ring + 1) % n, ring])])
    data = Data(
        x=torch.randn(n, 5),
        edge_index=edge_index,
        y=torch.arange(n) % 3,
        train_mask=ring < 20,
        val_mask=(ring >= 20) & (ring < 30),
        test_mask=ring >= 30,
    )
    store = loom.from_pyg(data, tmp_path / "ring")
    assert store.num_nodes == n and store.num_edges == 2 * n
    assert torch.equal(store.features, data.x) and torch.equal(store.labels, data.y)
    assert torch.equal(store.split("valid"), torch.arange(20, 30))
    assert torch.equal(store.indices[store.indptr[0] : store.indptr[1]].sort().values, torch.tensor([1, n - 1]))
    assert not any(p.name.startswith(".from_pyg") for p in tmp_path.iterdir()), "the arrays are removed"
    with pytest.raises(loom.Error, match="edge_index"):
        loom.from_pyg(Data(x=data.x), tmp_path / "no-edges")
    with pytest.raises(loom.Error, match="train_mask must be a 1-D bool"):
        loom.from_pyg(
            Data(x=data.x, edge_index=edge_index, train_mask=torch.ones(n, 2, dtype=torch.bool)), tmp_path / "bad-mask"
        )


def test_from_pyg_keeps_float16_names_what_it_drops_and_refuses_heterodata(tmp_path):
    n = 12
    ring = torch.arange(n)
    edge_index = torch.stack([ring, (ring + 1) % n])
    data = Data(x=torch.randn(n, 4).half(), edge_index=edge_index, edge_attr=torch.randn(n, 2), pos=torch.randn(n, 3))
    with pytest.warns(UserWarning, match="edge_attr, pos not stored"):
        store = loom.from_pyg(data, tmp_path / "half")
    assert store.features.dtype == torch.float16 and torch.equal(store.features, data.x)
    from torch_geometric.data import HeteroData

    hetero = HeteroData()
    hetero["paper"].x = torch.randn(3, 2)
    hetero["paper", "cites", "paper"].edge_index = torch.tensor([[0, 1], [1, 2]])
    with pytest.raises(loom.Error, match="HeteroData .*to_homogeneous"):
        loom.from_pyg(hetero, tmp_path / "hetero")
