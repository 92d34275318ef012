"""GraphSAGE link prediction in PyG's idiom (RandomLinkSplit, a SAGE encoder, a dot-product
decoder, binary cross-entropy on edge_label) over a Loom store's graph, twice:
pyg_link_neighbor_loader.py draws its batches with PyG's LinkNeighborLoader, pyg_link_loom.py is
the same script with its loader lines changed to loom.LinkLoader and its model to Loom's
GraphSAGE (the same layers, run on the batch's blocks: each layer only on the nodes the next one
needs; `diff` them). Both score
the held-out edges the same way: the full graph through the model, AUC and Hits@50 as OGB defines
them (Hits@K: positives above the K-th highest negative).

    PYTHONPATH=build/python:../shared/peers/pyg /usr/bin/python3 \
        examples/python/pyg_link_loom.py STORE --epochs 10
"""
import argparse
import os
import tempfile
import time

import loom  # first: it picks the OpenMP OpenBLAS before torch loads one (loom/_blas.py)
import torch
import torch.nn.functional as F
import torch_geometric.transforms as T
from torch_geometric.data import Data
from torch_geometric.loader import LinkNeighborLoader
from torch_geometric.nn import SAGEConv

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("store")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--work", default=tempfile.gettempdir(), help="where the port writes its training graph")
args = parser.parse_args()
torch.manual_seed(args.seed)

store = loom.GraphStore(args.store)
data = Data(x=store.features, edge_index=store.edge_index(), num_nodes=store.num_nodes)
split = T.RandomLinkSplit(num_val=0.05, num_test=0.1, is_undirected=True, add_negative_train_samples=False)
train_data, val_data, test_data = split(data)
train_loader = LinkNeighborLoader(
    train_data,
    num_neighbors=[10, 10],
    batch_size=256,
    edge_label_index=train_data.edge_label_index,
    neg_sampling_ratio=1.0,
    shuffle=True,
)


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.convs = torch.nn.ModuleList(
            [SAGEConv(in_channels, hidden_channels), SAGEConv(hidden_channels, out_channels)]
        )

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = F.dropout(x.relu(), p=0.2, training=self.training)
        return x


model = SAGE(store.feat_dim, 128, 128)
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)


def train():
    model.train()
    total_loss = total_examples = 0
    for batch in train_loader:
        optimizer.zero_grad()
        z = model(batch.x, batch.edge_index)
        out = (z[batch.edge_label_index[0]] * z[batch.edge_label_index[1]]).sum(dim=-1)
        loss = F.binary_cross_entropy_with_logits(out, batch.edge_label)
        loss.backward()
        optimizer.step()
        total_loss += float(loss) * out.numel()
        total_examples += out.numel()
    return total_loss / total_examples


def auc_and_hits(scores, labels, k=50):
    positive, negative = scores[labels == 1], scores[labels == 0]
    ranks = torch.cat([positive, negative]).argsort().argsort().double() + 1  # ties: rare with float scores
    auc = (ranks[: positive.numel()].sum() - positive.numel() * (positive.numel() + 1) / 2) / (
        positive.numel() * negative.numel()
    )
    threshold = negative.topk(k).values[-1] if negative.numel() >= k else float("-inf")
    return float(auc), float((positive > threshold).double().mean())


@torch.no_grad()
def test(split_data):
    model.eval()
    z = model(split_data.x, split_data.edge_index)
    out = (z[split_data.edge_label_index[0]] * z[split_data.edge_label_index[1]]).sum(dim=-1)
    return auc_and_hits(out, split_data.edge_label)


train_seconds = 0.0
for epoch in range(1, args.epochs + 1):
    start = time.perf_counter()
    loss = train()
    train_seconds += time.perf_counter() - start
    (valid_auc, valid_hits), (test_auc, test_hits) = test(val_data), test(test_data)
    print(
        f"epoch {epoch:02d}: loss {loss:.4f} | valid auc {valid_auc:.4f} hits@50 {valid_hits:.4f} | "
        f"test auc {test_auc:.4f} hits@50 {test_hits:.4f}"
    )
print(f"seconds per epoch {train_seconds / args.epochs:.3f} | final test auc {test_auc:.4f} hits@50 {test_hits:.4f}")
