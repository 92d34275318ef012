"""The published GCN and GAT recipes on a Planetoid graph, written as one would in PyG, on Loom's
data path and layers: full neighbourhoods (fanouts -1,-1) and one full-batch step per epoch, the
test score taken at the epoch with the best validation score (the papers' model selection).

    loom import ogb ../shared/data/graphs/cora -o cora --split planetoid
    PYTHONPATH=build/python /usr/bin/python3 examples/python/planetoid_recipe.py cora --model gat

GCN (Kipf & Welling 2017): hidden 16, dropout 0.5 on the input and the hidden layer, Adam lr 0.01,
weight decay 5e-4 on the first layer only, row-normalised features, 200 epochs.
GAT (Velickovic et al. 2018): 8 heads x 8 hidden (ELU), dropout 0.6 on the input of both layers and
on the attention coefficients, one output head (--output-heads 8, averaged, for PubMed, with
--lr 0.01 --weight-decay 1e-3), Adam lr 0.005, weight decay 5e-4, row-normalised features.
The same recipes for `loom train` are configs/gcn-planetoid.toml and configs/gat-*.toml.
"""
import argparse
import copy

import loom  # first: it picks the OpenMP OpenBLAS before torch loads one (loom/_blas.py)
import torch
import torch.nn.functional as F


class GCN(torch.nn.Module):
    def __init__(self, in_features, hidden, classes, dropout):
        super().__init__()
        self.conv1, self.conv2 = loom.nn.GCNConv(in_features, hidden), loom.nn.GCNConv(hidden, classes)
        self.dropout = dropout

    def forward(self, x, blocks):
        x = F.dropout(x, self.dropout, self.training)
        x = F.dropout(torch.relu(self.conv1(blocks[0], x)), self.dropout, self.training)
        return self.conv2(blocks[1], x)

    def parameter_groups(self, weight_decay):
        """Kipf & Welling decay the first layer's weights only."""
        return [
            {"params": self.conv1.parameters(), "weight_decay": weight_decay},
            {"params": self.conv2.parameters(), "weight_decay": 0.0},
        ]


class GAT(torch.nn.Module):
    def __init__(self, in_features, hidden, heads, classes, output_heads, dropout):
        super().__init__()
        self.conv1 = loom.nn.GATConv(in_features, hidden, heads=heads, attention_dropout=dropout)
        self.conv2 = loom.nn.GATConv(
            hidden * heads, classes, heads=output_heads, concat=False, attention_dropout=dropout
        )
        self.dropout = dropout

    def forward(self, x, blocks):
        x = F.dropout(x, self.dropout, self.training)
        x = F.dropout(F.elu(self.conv1(blocks[0], x)), self.dropout, self.training)
        return self.conv2(blocks[1], x)

    def parameter_groups(self, weight_decay):
        return [{"params": self.parameters(), "weight_decay": weight_decay}]


def parse_arguments():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("store", help="a graph store with a Planetoid split (loom import ogb ... --split planetoid)")
    a.add_argument("--model", choices=["gcn", "gat"], default="gcn")
    a.add_argument("--epochs", type=int, default=200)
    a.add_argument("--lr", type=float, help="default: 0.01 (GCN), 0.005 (GAT)")
    a.add_argument("--weight-decay", type=float, default=5e-4)
    a.add_argument("--output-heads", type=int, default=1, help="GAT's output heads, averaged")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--threads", type=int, default=0)
    return a.parse_args()


def make_model(args, loader):
    torch.manual_seed(args.seed)
    if args.model == "gcn":
        return GCN(loader.feat_dim, 16, loader.num_classes, dropout=0.5)
    return GAT(loader.feat_dim, 8, 8, loader.num_classes, args.output_heads, dropout=0.6)


def train_step(model, loader, optimizer, epoch):
    model.train()
    for batch in loader.epoch(epoch):  # one batch: every training node
        optimizer.zero_grad()
        F.cross_entropy(model(batch.x, batch.blocks), batch.y).backward()
        optimizer.step()


def main():
    args = parse_arguments()
    lr = args.lr if args.lr is not None else (0.01 if args.model == "gcn" else 0.005)
    full_batch = len(loom.GraphStore(args.store).split("train"))
    loader = loom.Loader(
        args.store,
        fanouts=[-1, -1],
        batch_size=full_batch,
        seed=args.seed,
        threads=args.threads,
        normalize_features="row",
        gcn_norm=args.model == "gcn",
        eval_fanouts=[-1],
    )
    model = make_model(args, loader)
    optimizer = torch.optim.Adam(model.parameter_groups(args.weight_decay), lr=lr)
    best_valid, best_state, best_epoch = -1.0, None, 0
    for epoch in range(args.epochs):
        train_step(model, loader, optimizer, epoch)
        valid = loader.evaluate(model, "valid")["accuracy"]
        if valid > best_valid:
            best_valid, best_state, best_epoch = valid, copy.deepcopy(model.state_dict()), epoch + 1
    model.load_state_dict(best_state)
    test = loader.evaluate(model, "test")["accuracy"]
    print(
        f"{args.model} on {args.store}: test accuracy {test:.4f} at epoch {best_epoch} "
        f"(best validation accuracy {best_valid:.4f})"
    )


if __name__ == "__main__":
    main()
