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
