"""Loom's GNN layers as torch.nn.Modules over Loom Blocks, with Loom's aggregation kernels (hand-
written CSR forward and backward) doing the message passing: the same math and initialisation as
`loom train --model sage|gcn|gat`. Each layer maps the features of a block's sources
x [num_src, in] to its destinations [num_dst, out]; a destination's own row is x[:num_dst]. x may
be a torch.sparse_csr tensor (a Batch's x from a store in the sparse layout): the layer then
multiplies it by its weights without widening it (loom.ops.sparse_linear) and aggregates the
products, as `loom train` does.
"""
import math

import torch
from torch import nn

from . import _loom

_aggregate = _loom.ops.aggregate
_sparse_linear = _loom.ops.sparse_linear


def _is_sparse(x):
    return x.layout == torch.sparse_csr


def _kaiming(out_features, in_features):
    w = torch.empty(out_features, in_features)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))  # torch.nn.Linear's default
    return w


def _glorot(shape, fan_in, fan_out):
    bound = math.sqrt(6.0 / (fan_in + fan_out))
    return torch.empty(shape).uniform_(-bound, bound)


def _aggregate_first(block, in_features, out_features):
    """True when aggregating the input first costs fewer flops than transforming it first."""
    e = block.num_edges
    return (
        e * in_features + block.num_dst * in_features * out_features
        <= block.num_src * in_features * out_features + e * out_features
    )


class SAGEConv(nn.Module):
    """GraphSAGE, mean aggregator with a root weight: lin_l(mean_{j->i} x_j) + lin_r(x_i)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight_l = nn.Parameter(_kaiming(out_features, in_features))
        bound = 1.0 / math.sqrt(in_features)
        self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        self.weight_r = nn.Parameter(_kaiming(out_features, in_features))

    def forward(self, block, x):
        if _is_sparse(x):
            neigh = _aggregate(block, _sparse_linear(x, self.weight_l, block.num_src), "mean")
            return neigh + _sparse_linear(x, self.weight_r, block.num_dst) + self.bias
        if _aggregate_first(block, self.in_features, self.out_features):
            neigh = torch.addmm(self.bias, _aggregate(block, x, "mean"), self.weight_l.t())
        else:
            neigh = _aggregate(block, x @ self.weight_l.t(), "mean") + self.bias
        return torch.addmm(neigh, x[: block.num_dst], self.weight_r.t())


class GCNConv(nn.Module):
    """GCN (Kipf & Welling): D^-1/2 (A + I) D^-1/2 x W + b, with the whole graph's degrees on the
    blocks a Loader builds with gcn_norm=True (the block's own degrees otherwise)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(_glorot((out_features, in_features), in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, block, x):
        if _is_sparse(x):
            return _aggregate(block, _sparse_linear(x, self.weight, block.num_src), "gcn") + self.bias
        if _aggregate_first(block, self.in_features, self.out_features):
            return torch.addmm(self.bias, _aggregate(block, x, "gcn"), self.weight.t())
        return _aggregate(block, x @ self.weight.t(), "gcn") + self.bias


class GATConv(nn.Module):
    """GAT (Velickovic et al.): multi-head attention with self-loops and LeakyReLU 0.2; heads
    concatenated ([num_dst, heads * out]) or averaged ([num_dst, out]); attention dropout in training."""

    def __init__(self, in_features, out_features, heads=1, concat=True, attention_dropout=0.0, negative_slope=0.2):
        super().__init__()
        self.out_features, self.heads, self.concat = out_features, heads, concat
        self.attention_dropout, self.negative_slope = attention_dropout, negative_slope
        self.weight = nn.Parameter(_glorot((heads * out_features, in_features), in_features, heads * out_features))
        self.att_src = nn.Parameter(_glorot((heads, out_features), heads, out_features))
        self.att_dst = nn.Parameter(_glorot((heads, out_features), heads, out_features))
        self.bias = nn.Parameter(torch.zeros(heads * out_features if concat else out_features))

    def forward(self, block, x):
        h = _sparse_linear(x, self.weight, block.num_src) if _is_sparse(x) else x @ self.weight.t()
        h = h.view(block.num_src, self.heads, self.out_features)
        a_src = (h * self.att_src).sum(-1)
        a_dst = (h[: block.num_dst] * self.att_dst).sum(-1)
        out = _loom.ops.gat_aggregate(
            block, h, a_src, a_dst, self.negative_slope, True, self.attention_dropout, self.training
        )
        if self.concat:
            return out.reshape(block.num_dst, self.heads * self.out_features) + self.bias
        return out.mean(1) + self.bias


def whole_graph_block(edge_index, num_nodes):
    """PyG's full-graph view as one Loom Block: every node a destination, aggregating along
    edge_index (row 0 source, row 1 target), for a model run on the whole graph."""
    edge_index = edge_index.to(torch.int64)
    source, target = edge_index[0], edge_index[1]
    order = torch.argsort(target * num_nodes + source)
    indptr = torch.zeros(num_nodes + 1, dtype=torch.int64, device=edge_index.device)
    indptr[1:] = torch.bincount(target, minlength=num_nodes).cumsum(0)
    return _loom.Block(indptr, source[order].contiguous(), num_nodes)


class GraphSAGE(nn.Module):
    """A stack of SAGEConv layers with ReLU and dropout between them: `loom train --model sage`.
    model(x, blocks) runs on a batch's blocks (each layer only on the nodes the next one needs);
    model(x, edge_index) on a whole graph, PyG's way (every layer on every node)."""

    def __init__(self, in_features, hidden, out_features, num_layers=3, dropout=0.5):
        super().__init__()
        widths = [in_features] + [hidden] * (num_layers - 1) + [out_features]
        self.convs = nn.ModuleList(SAGEConv(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.dropout = dropout

    def forward(self, x, blocks):
        if isinstance(blocks, torch.Tensor):
            blocks = [whole_graph_block(blocks, x.size(0))] * len(self.convs)
        for i, (conv, block) in enumerate(zip(self.convs, blocks)):
            x = conv(block, x)
            if i + 1 < len(self.convs):
                x = _loom.ops.relu_dropout(x, self.dropout, self.training)
        return x
