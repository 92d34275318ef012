"""Run by mpi_loader.sh under `mpirun -np 2 python3 -m pytest`: each rank loads its part of the
2-way partitioned store $LOOM_TEST_PARTS; the loader samples and moves the rows that `loom train`
moved with the same options and seed ($LOOM_TEST_METRICS), gradients are averaged over the
ranks, and the features channel counts the bytes."""
import json
import os

import torch

import loom


def test_two_ranks_fetch_what_loom_train_fetches():
    assert loom.comm.size() == 2
    loader = loom.Loader(os.environ["LOOM_TEST_PARTS"], fanouts=[10, 5], batch_size=64, seed=7, threads=1)
    torch.manual_seed(0)
    model = loom.nn.GraphSAGE(loader.feat_dim, 16, loader.num_classes, num_layers=2)
    sync = loom.comm.GradientSync(list(model.parameters()))
    before = loom.comm.stats()["features"]["bytes_received"]
    parts = loom.PartitionedStore(os.environ["LOOM_TEST_PARTS"])
    for batch in loader.epoch(0):
        # The seeds' user ids: the generated store's ids are its rows, which the partition renumbered.
        assert torch.equal(batch.original_ids, parts.new_to_source[batch.seeds])
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y).backward()
        sync.all_reduce()
    stats = loader.epoch_stats()
    assert loom.comm.stats()["features"]["bytes_received"] > before
    record = [json.loads(line) for line in open(os.environ["LOOM_TEST_METRICS"]) if '"epoch"' in line][0]
    assert stats["rows_remote"] == record["rows_remote"] > 0
    assert stats["sampled_edges"] == record["sampled_edges"]
    assert stats["rows_local"] == record["rows_local"]
    # After the all-reduce every rank holds the same gradient.
    grad = torch.cat([p.grad.flatten() for p in model.parameters()]).double()
    total = loom.comm.allreduce_sum([grad.sum().item()])[0]
    assert abs(total - 2 * grad.sum().item()) < 1e-6 * max(1.0, abs(total))


def test_input_nodes_give_each_rank_its_share_in_its_part():
    parts = loom.PartitionedStore(os.environ["LOOM_TEST_PARTS"])
    chosen = torch.arange(0, 1200, 7)  # the source store's ids (what batch.original_ids gives)
    loader = loom.Loader(parts.path, fanouts=[10, 5], batch_size=32, seed=7, threads=1, input_nodes=chosen)
    mine = loader.local_nodes(chosen)
    offsets = parts.node_offsets
    rank = loom.comm.rank()
    assert bool(((mine >= offsets[rank]) & (mine < offsets[rank + 1])).all())  # in this rank's part
    seen = set()
    for batch in loader.epoch(0):
        seen.update(batch.original_ids.tolist())
    everyone = loom.comm.allreduce_sum([float(len(mine))])[0]
    assert everyone == len(chosen)
    assert seen == set(parts.new_to_source[mine].tolist())
    model = loom.nn.GraphSAGE(loader.feat_dim, 8, loader.num_classes, num_layers=2)
    assert loader.evaluate(model, chosen[:50])["nodes"] == 50  # summed over the ranks


def test_link_loader_trains_each_ranks_pairs_and_scores_over_all_ranks():
    parts = loom.PartitionedStore(os.environ["LOOM_TEST_PARTS"])
    edges = loom.GraphStore(os.environ["LOOM_TEST_SOURCE"]).edge_index()[:, ::5]  # the source store's rows
    loader = loom.LinkLoader(parts.path, fanouts=[10, 5], batch_size=64, seed=3, threads=1, edge_label_index=edges)
    rank, offsets = loom.comm.rank(), parts.node_offsets
    torch.manual_seed(0)
    model = loom.nn.GraphSAGE(loader.feat_dim, 16, 16, num_layers=2)
    sync = loom.comm.GradientSync(list(model.parameters()))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    positives = 0
    given = set(map(tuple, edges.t().tolist()))
    for batch in loader:
        first = batch.seeds[batch.edge_label_index[0][batch.edge_label == 1]]
        assert bool(((first >= offsets[rank]) & (first < offsets[rank + 1])).all())  # pairs this rank owns
        positives += int(batch.edge_label.sum())
        # the seeds named as edge_label_index names them: the source store's rows, on any rank
        pair_rows = batch.original_ids[batch.edge_label_index[:, batch.edge_label == 1]]
        assert set(map(tuple, pair_rows.t().tolist())) <= given
        z = model(batch.x, batch.blocks)
        out = (z[batch.edge_label_index[0]] * z[batch.edge_label_index[1]]).sum(-1)
        optimizer.zero_grad()
        torch.nn.functional.binary_cross_entropy_with_logits(out, batch.edge_label).backward()
        sync.all_reduce()
        optimizer.step()
    assert loom.comm.allreduce_sum([float(positives)])[0] >= edges.size(1)  # every pair, some twice (cycling)
    assert loader.epoch_stats()["rows_remote"] > 0
    negatives = torch.randint(0, parts.num_nodes, edges.shape, generator=torch.Generator().manual_seed(1))
    pairs = torch.cat([edges, negatives], 1)
    labels = torch.cat([torch.ones(edges.size(1)), torch.zeros(edges.size(1))])
    scores = loader.evaluate(model, pairs, labels, hits_at=[50])
    assert scores["positives"] == edges.size(1) and scores["negatives"] == edges.size(1)  # summed over the ranks
    assert scores["auc"] > 0.6
