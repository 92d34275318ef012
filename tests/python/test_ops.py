"""loom.ops and loom.nn: Loom's kernels from Python give the values and gradients of dense
references, its layers train a model through PyTorch's autograd, and a PyG layer (where the peer
is installed) consumes a block's edge_index."""
import os
import sys
import warnings

import pytest
import torch

import loom
from conftest import ROOT


def random_block(num_src=30, num_dst=12, max_degree=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    indptr, indices = [0], []
    for _ in range(num_dst):
        degree = int(torch.randint(0, max_degree + 1, (1,), generator=g))
        indices += torch.randperm(num_src, generator=g)[:degree].tolist()
        indptr.append(len(indices))
    return loom.Block(torch.tensor(indptr), torch.tensor(indices, dtype=torch.int32), num_src)


def dense(block):
    a = torch.zeros(block.num_dst, block.num_src, dtype=torch.float64)
    src, dst = block.edge_index()
    a[dst, src] = 1.0
    return a


def test_sum_and_mean_match_dense_values_and_gradients():
    block = random_block()
    a = dense(block)
    x = torch.randn(block.num_src, 4, dtype=torch.float64, requires_grad=True)
    for kind, want in (("sum", a), ("mean", a / a.sum(1, keepdim=True).clamp(min=1))):
        got = loom.ops.aggregate(block, x, kind)
        assert torch.allclose(got, want @ x)
        upstream = torch.randn_like(got)
        (g_got,) = torch.autograd.grad(got, x, upstream)
        (g_want,) = torch.autograd.grad(want @ x, x, upstream)
        assert torch.allclose(g_got, g_want)
    assert torch.autograd.gradcheck(lambda t: loom.ops.aggregate(block, t, "mean"), (x,))


def test_gat_aggregate_gradients_check():
    block = random_block(8, 5, 3, seed=1)
    x = torch.randn(8, 2, 3, dtype=torch.float64, requires_grad=True)
    a_src = torch.randn(8, 2, dtype=torch.float64, requires_grad=True)
    a_dst = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *t: loom.ops.gat_aggregate(block, *t), (x, a_src, a_dst))


def test_bad_kind_is_a_loom_error():
    block = random_block()
    try:
        loom.ops.aggregate(block, torch.randn(block.num_src, 2), "max")
        raise AssertionError("accepted")
    except loom.Error as e:
        assert "unknown aggregation 'max'" in str(e)


def test_layers_learn_a_planted_task_on_whole_graph_blocks(sbm):
    store = loom.GraphStore(sbm)
    whole = loom.Block(store.indptr, store.indices, store.num_nodes)
    x, y = store.features.float(), store.labels
    train, test = store.split("train"), store.split("test")
    torch.manual_seed(0)
    for conv in (loom.nn.SAGEConv, loom.nn.GCNConv, lambda i, o: loom.nn.GATConv(i, o, heads=2, concat=False)):
        layers = torch.nn.ModuleList([conv(16, 32), conv(32, 4)])
        opt = torch.optim.Adam(layers.parameters(), lr=0.01)
        for _ in range(60):
            opt.zero_grad()
            h = layers[1](whole, torch.relu(layers[0](whole, x)))
            loss = torch.nn.functional.cross_entropy(h[train], y[train])
            loss.backward()
            opt.step()
        with torch.no_grad():
            h = layers[1](whole, torch.relu(layers[0](whole, x)))
        accuracy = (h[test].argmax(1) == y[test]).float().mean().item()
        assert accuracy > 0.8, (conv, accuracy)


def test_relu_dropout_is_dropout_of_relu_with_its_gradient():
    torch.manual_seed(0)
    x = torch.randn(4096, 8, requires_grad=True)
    y = loom.ops.relu_dropout(x, 0.25, True)
    kept = y != 0
    assert torch.allclose(y[kept], x[kept] / 0.75) and (x[kept] > 0).all()
    assert abs(kept.float().mean().item() - 0.5 * 0.75) < 0.01
    y.sum().backward()
    assert torch.allclose(x.grad, kept.float() / 0.75)
    assert torch.equal(loom.ops.relu_dropout(x, 0.25, False), torch.relu(x))


def test_a_pyg_layer_consumes_a_block_edge_index(sbm):
    """block.edge_index() is PyG's bipartite layout: PyG's SAGEConv on it equals loom.nn.SAGEConv."""
    pyg = os.environ.get("PYG", os.path.join(ROOT, "..", "shared", "peers", "pyg"))
    if not os.path.isdir(os.path.join(pyg, "torch_geometric")):
        pytest.skip(f"PyG peer not found at {pyg}")
    sys.path.insert(0, pyg)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch_geometric.nn import SAGEConv
    finally:
        sys.path.remove(pyg)
    batch = next(iter(loom.Loader(sbm, fanouts=[10, 5], batch_size=64).epoch(0)))
    block = batch.blocks[0]
    torch.manual_seed(0)
    ours, theirs = loom.nn.SAGEConv(batch.x.shape[1], 8), SAGEConv(batch.x.shape[1], 8)
    with torch.no_grad():
        theirs.lin_l.weight.copy_(ours.weight_l)
        theirs.lin_l.bias.copy_(ours.bias)
        theirs.lin_r.weight.copy_(ours.weight_r)
    expected = theirs((batch.x, batch.x[: block.num_dst]), block.edge_index(), size=(block.num_src, block.num_dst))
    assert torch.allclose(ours(block, batch.x), expected, atol=1e-5)


@pytest.mark.parametrize("layer", ["sage", "gcn", "gat"])
def test_layers_take_sparse_rows_as_the_dense_rows_they_stand_for(layer):
    block = random_block(num_src=40, num_dst=10, seed=3)
    g = torch.Generator().manual_seed(5)
    x = torch.rand(40, 60, generator=g) * (torch.rand(40, 60, generator=g) < 0.1)
    torch.manual_seed(0)
    conv = {
        "sage": lambda: loom.nn.SAGEConv(60, 8),
        "gcn": lambda: loom.nn.GCNConv(60, 8),
        "gat": lambda: loom.nn.GATConv(60, 4, heads=2),
    }[layer]()
    outs, grads = [], []
    for rows in (x, x.to_sparse_csr()):
        conv.zero_grad()
        out = conv(block, rows)
        out.pow(2).sum().backward()
        outs.append(out.detach())
        grads.append([p.grad.clone() for p in conv.parameters()])
    assert torch.allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5)
    for dense_grad, sparse_grad in zip(*grads):
        assert torch.allclose(dense_grad, sparse_grad, rtol=1e-4, atol=1e-5)


def test_sparse_linear_names_a_dense_x():
    with pytest.raises(loom.Error, match="x"):
        loom.ops.sparse_linear(torch.rand(3, 4), torch.rand(2, 4), 3)
