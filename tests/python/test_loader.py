"""loom.Loader: `loom train`'s data path from Python: batches with the blocks, inputs and labels
the sampler and fetcher produce, a Python model trained on them, the epoch statistics `loom
train` reports, and bad options as loom.Error with the CLI's messages."""
import json
import types

import pytest
import torch

import loom
from conftest import loom_cli


def test_batches_hold_blocks_inputs_and_labels(sbm):
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=128, seed=1)
    batches = list(loader.epoch(0))
    assert len(batches) == loader.steps(0)
    train = set(loader.local_nodes("train").tolist())
    for b in batches:
        assert len(b.blocks) == 2
        assert b.x.shape == (b.input_nodes.numel(), loader.feat_dim)
        assert b.blocks[0].num_src == b.input_nodes.numel()
        assert b.blocks[1].num_dst == b.num_seeds == b.y.numel()
        assert torch.equal(b.input_nodes[: b.num_seeds], b.seeds)  # the seeds come first
        assert set(b.seeds.tolist()) <= train
    store = loom.GraphStore(sbm)
    b = batches[0]
    assert torch.equal(b.x, store.features[b.input_nodes])
    assert torch.equal(b.y, store.labels[b.seeds])
    assert torch.equal(b.original_ids, store.original_ids[b.seeds])
    stats = loader.epoch_stats()
    assert stats["rows_local"] == sum(b.input_nodes.numel() for b in batches)
    assert stats["rows_remote"] == 0 and stats["steps"] == len(batches)


def test_superbatch_yields_the_same_batches(sbm):
    single = list(loom.Loader(sbm, fanouts=[10, 5], batch_size=16, seed=1).epoch(0))
    grouped = list(loom.Loader(sbm, fanouts=[10, 5], batch_size=16, seed=1, superbatch=3).epoch(0))
    assert len(single) == len(grouped) > 3
    for a, b in zip(single, grouped):
        assert torch.equal(a.input_nodes, b.input_nodes)
        assert torch.equal(a.x, b.x) and torch.equal(a.y, b.y)
    with pytest.raises(loom.Error, match="superbatch: must be >= 1"):
        loom.Loader(sbm, fanouts=[10, 5], superbatch=0)


def test_python_model_trains_on_the_loader(sbm):
    torch.manual_seed(0)
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=128, seed=1)
    model = loom.nn.GraphSAGE(loader.feat_dim, 32, loader.num_classes, num_layers=2, dropout=0.1)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(30):
        for batch in loader.epoch(epoch):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y).backward()
            opt.step()
    store = loom.GraphStore(sbm)
    whole = loom.Block(store.indptr, store.indices, store.num_nodes)
    model.eval()
    with torch.no_grad():
        logits = model(store.features, [whole, whole])
    test = store.split("test")
    whole_graph_accuracy = (logits[test].argmax(1) == store.labels[test]).float().mean().item()
    assert whole_graph_accuracy > 0.9
    # Evaluation batches with every neighbour (-1) are exact inference: the whole-graph figure.
    exact = loom.Loader(sbm, fanouts=[10, 5], eval_fanouts=[-1], batch_size=128).evaluate(model, "test", batch_size=100)
    assert exact["nodes"] == test.numel() and abs(exact["accuracy"] - whole_graph_accuracy) < 1e-6
    sampled = loader.evaluate(model, "test")
    assert abs(sampled["accuracy"] - whole_graph_accuracy) < 0.05 and sampled["loss"] > 0


def test_same_batches_as_loom_train(sbm, tmp_path):
    """The loader samples what `loom train` samples with the same options and seed."""
    metrics = tmp_path / "m.jsonl"
    loom_cli(
        "train",
        sbm,
        "--layers",
        "2",
        "--fanouts",
        "10,5",
        "--batch-size",
        "128",
        "--epochs",
        "1",
        "--seed",
        "7",
        "--eval-every",
        "0",
        "--no-exact-eval",
        "--metrics",
        str(metrics),
    )
    record = [json.loads(line) for line in open(metrics) if "epoch" in line][0]
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=128, seed=7)
    for _ in loader.epoch(0):
        pass
    stats = loader.epoch_stats()
    assert stats["sampled_edges"] == record["sampled_edges"]
    assert stats["rows_local"] == record["rows_local"]


def test_bad_options_raise_the_cli_messages(sbm, tmp_path):
    with pytest.raises(loom.Error, match="missing"):
        loom.Loader(str(tmp_path / "missing"), fanouts=[10, 5])
    with pytest.raises(loom.Error, match="argument fanouts: fanout 0 is invalid"):
        loom.Loader(sbm, fanouts=[10, 0])
    with pytest.raises(loom.Error, match="cache"):
        loom.Loader(sbm, fanouts=[10, 5], cache="lru")
    with pytest.raises(loom.Error, match="wire_dtype"):
        loom.Loader(sbm, fanouts=[10, 5], wire_dtype="int8")
    with pytest.raises(loom.Error, match="argument eval_fanouts: 3 fanouts .* for a 2-layer model"):
        loom.Loader(sbm, fanouts=[10, 5], eval_fanouts=[5, 5, 5])
    with pytest.raises(loom.Error, match="argument controller: unknown value 'magic'"):
        loom.Loader(sbm, fanouts=[10, 5], controller="magic")
    loader = loom.Loader(sbm, fanouts=[10, 5])
    with pytest.raises(loom.Error, match="argument nodes: unknown split 'dev'"):
        loader.evaluate(torch.nn.Identity(), "dev")


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"fanouts": "10,5"}, "fanouts must be a list of ints"),
        ({"fanouts": []}, "fanouts must be a non-empty list of ints"),
        ({"fanouts": [10, 5], "batch_size": "128"}, "batch_size must be an int, got str '128'"),
        ({"fanouts": [10, 5], "alpha": "0.1"}, "alpha must be a float"),
        ({"fanouts": [10, 5], "cache": 3}, "cache must be a str"),
        ({"fanouts": [10, 5], "shuffle": 1}, "shuffle must be a bool"),
        ({"fanouts": [10, 5], "eval_fanouts": -1}, "eval_fanouts must be a list of ints"),
        ({"fanouts": [10, 5], "input_nodes": 3.5}, "input_nodes must be a split name"),
    ],
)
def test_arguments_of_the_wrong_type_are_named(sbm, keywords, message):
    with pytest.raises(TypeError, match=message):
        loom.Loader(sbm, **keywords)


def test_a_keyword_the_loader_does_not_take_is_named_with_the_closest_one(sbm):
    closest = r"loom.Loader\(\) got unexpected keyword argument 'batchsize' \(did you mean 'batch_size'\?\)"
    with pytest.raises(TypeError, match=closest):
        loom.Loader(sbm, fanouts=[10, 5], batchsize=64)
    with pytest.raises(TypeError, match=r"arguments 'bogus', 'device_rows'.*; see help\(loom.Loader\)$"):
        loom.Loader(sbm, fanouts=[10, 5], bogus=1, device_rows=0.5)
    with pytest.raises(TypeError, match=r"'num_neighbors' \(did you mean 'fanouts'\?\)") as error:
        loom.Loader(sbm, fanouts=[10, 5], num_neighbors=[10, 5])
    assert len(str(error.value)) < 300
    with pytest.raises(
        TypeError, match=r"loom.LinkLoader\(\) got unexpected keyword argument 'neg_ratio' \(did you mean"
    ):
        loom.LinkLoader(sbm, fanouts=[10, 5], neg_ratio=2.0)


def seeds_of(loader, epoch=0):
    return [b.seeds.tolist() for b in loader.epoch(epoch)]


def test_input_nodes_given_as_the_train_split_give_its_batches(sbm):
    store = loom.GraphStore(sbm)
    train = store.split("train")
    mask = torch.zeros(store.num_nodes, dtype=torch.bool)
    mask[train] = True
    reference = seeds_of(loom.Loader(sbm, fanouts=[10, 5], batch_size=64, seed=2))
    for given in ("train", train, mask, train.numpy(), train.tolist()):
        assert seeds_of(loom.Loader(sbm, fanouts=[10, 5], batch_size=64, seed=2, input_nodes=given)) == reference


def test_input_nodes_train_on_any_seed_set_in_order_or_shuffled(sbm):
    chosen = torch.tensor([1100, 5, 700, 42, 999, 3, 64, 512, 77, 1])
    ordered = loom.Loader(sbm, fanouts=[10, 5], batch_size=4, input_nodes=chosen, shuffle=False)
    # batches of 4 in the order given, the last filled up from the start (as `loom train` cycles)
    assert seeds_of(ordered) == [[5, 42, 700, 1100], [3, 64, 512, 999], [1, 5, 77, 1100]]
    shuffled = loom.Loader(sbm, fanouts=[10, 5], batch_size=4, input_nodes=chosen)
    batches = seeds_of(shuffled)
    assert sorted(sum(batches, [])[:10]) == sorted(chosen.tolist()) and batches != seeds_of(ordered)
    assert torch.equal(next(iter(shuffled.epoch(0))).y, loom.GraphStore(sbm).labels[batches[0]])


def test_input_nodes_evaluate_any_node_set_and_refuse_ids_outside_the_graph(sbm):
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=64, eval_fanouts=[-1])
    model = loom.nn.GraphSAGE(loader.feat_dim, 16, loader.num_classes, num_layers=2)
    test = loom.GraphStore(sbm).split("test")
    assert loader.evaluate(model, test) == loader.evaluate(model, "test")
    assert loader.evaluate(model, test[:7])["nodes"] == 7
    with pytest.raises(
        loom.Error, match=r"argument input_nodes: 2 of the 3 ids are no node of the graph \(the first: 1200\)"
    ):
        loom.Loader(sbm, fanouts=[10, 5], input_nodes=[5, 1200, -1])
    with pytest.raises(loom.Error, match="argument input_nodes: a mask of 10 values for a graph of 1200 nodes"):
        loom.Loader(sbm, fanouts=[10, 5], input_nodes=torch.zeros(10, dtype=torch.bool))
    with pytest.raises(loom.Error, match="argument nodes: want node ids .* got a tensor of Float"):
        loader.evaluate(model, torch.tensor([1.0, 2.0]))


def test_input_nodes_take_a_store_without_splits(sbm, tmp_path):
    store = loom.GraphStore(sbm)
    graph = types.SimpleNamespace(x=store.features, edge_index=store.edge_index(), y=store.labels, keys=lambda: [])
    path = str(tmp_path / "no-splits")
    loom.from_pyg(graph, path)
    with pytest.raises(loom.Error, match="has no 'train' split"):
        loom.Loader(path, fanouts=[5])
    loader = loom.Loader(path, fanouts=[5], batch_size=50, input_nodes=torch.arange(100))
    assert sorted(sum(seeds_of(loader), [])) == list(range(100))
    assert (
        loader.evaluate(loom.nn.GraphSAGE(loader.feat_dim, 8, loader.num_classes, num_layers=1), torch.arange(9))[
            "nodes"
        ]
        == 9
    )


def test_graphsage_on_a_whole_graphs_edge_index_equals_exact_inference(sbm):
    store = loom.GraphStore(sbm)
    loader = loom.Loader(sbm, fanouts=[10, 5], eval_fanouts=[-1])
    torch.manual_seed(0)
    model = loom.nn.GraphSAGE(loader.feat_dim, 16, loader.num_classes, num_layers=2).eval()
    whole = model(store.features.float(), store.edge_index())
    batch = next(loader.eval_batches("test", batch_size=50))
    assert torch.allclose(model(batch.x, batch.blocks), whole[batch.seeds], atol=1e-5)
