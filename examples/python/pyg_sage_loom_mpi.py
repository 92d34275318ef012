"""GraphSAGE mini-batch training in PyG's idiom (a model with forward(x, edge_index), trained on
out[:batch.batch_size]) over a Loom store, twice: pyg_sage_neighbor_loader.py draws its batches
with PyG's NeighborLoader, pyg_sage_loom.py is the same script with only its loader lines changed
to loom.Loader (`diff` them; pyg_sage_loom_mpi.py is the latter under mpirun).

    PYTHONPATH=build/python:../shared/peers/pyg /usr/bin/python3 \
        examples/python/pyg_sage_loom.py STORE --epochs 10
"""
import argparse
import time

import loom  # first: it picks the OpenMP OpenBLAS before torch loads one (loom/_blas.py)
import torch
import torch.nn.functional as F
from torch_geometric.nn import SAGEConv

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("store")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)

train_loader = loom.Loader(args.store, fanouts=[25, 10], batch_size=256, seed=args.seed)


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
                x = F.dropout(x.relu(), p=0.5, training=self.training)
        return x


model = SAGE(train_loader.feat_dim, 256, train_loader.num_classes)
sync = loom.comm.GradientSync(list(model.parameters()))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)


def train():
    model.train()
    total_loss = total_examples = 0
    for batch in train_loader:
        optimizer.zero_grad()
        y = batch.y[: batch.batch_size]
        loss = F.cross_entropy(model(batch.x, batch.edge_index)[: batch.batch_size], y)
        loss.backward()
        sync.all_reduce()
        optimizer.step()
        total_loss += float(loss) * batch.batch_size
        total_examples += batch.batch_size
    return total_loss / total_examples


@torch.no_grad()
def test():
    model.eval()
    return [train_loader.evaluate(model, split, forward="edge_index")["accuracy"] for split in ("valid", "test")]


print = print if loom.comm.rank() == 0 else (lambda *_: None)  # rank 0 reports
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    loss = train()
    valid, test_accuracy = test()
    print(f"epoch {epoch:02d}: loss {loss:.4f} | valid {valid:.4f} | test {test_accuracy:.4f}")
print(f"seconds per epoch {(time.perf_counter() - start) / args.epochs:.3f} | final test accuracy {test_accuracy:.4f}")
