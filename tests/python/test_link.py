"""loom.LinkLoader: PyG's LinkNeighborLoader on Loom's data path: link batches whose seeds are the
pairs' distinct endpoints and whose edge_label_index / edge_label hold the pairs, negatives drawn
per batch, target edges left out of the message graph when asked, a model that learns the
links, OGB's metrics, and bad pairs named."""
import pytest
import torch

import loom


def held_out(store, count, seed=0):
    """`count` edges of the store and as many random pairs, labelled (PyG's RandomLinkSplit style)."""
    generator = torch.Generator().manual_seed(seed)
    edges = store.edge_index()
    chosen = edges[:, torch.randperm(edges.size(1), generator=generator)[:count]]
    negatives = torch.randint(0, store.num_nodes, (2, count), generator=generator)
    return torch.cat([chosen, negatives], 1), torch.cat([torch.ones(count), torch.zeros(count)])


def test_link_batches_hold_their_pairs_as_rows_of_the_seeds(sbm):
    store = loom.GraphStore(sbm)
    given = store.edge_index()[:, :300]
    loader = loom.LinkLoader(sbm, fanouts=[10, 5], batch_size=64, edge_label_index=given, neg_sampling_ratio=2.0)
    assert loader.links and len(loader) == 5
    positives = set()
    for batch in loader:
        pairs, labels = batch.edge_label_index, batch.edge_label
        assert pairs.shape == (2, 3 * 64) and labels.shape == (3 * 64,)
        assert int(labels.sum()) == 64
        assert int(pairs.max()) < batch.batch_size  # rows of the seeds, the first rows of x
        assert batch.seeds.unique().numel() == batch.batch_size
        ends = batch.seeds[pairs]
        positives.update(map(tuple, ends[:, labels == 1].t().tolist()))
    assert positives == set(map(tuple, given.t().tolist()))  # every pair given, and only those


def test_shuffle_false_keeps_the_pairs_in_the_order_given(sbm):
    given = loom.GraphStore(sbm).edge_index()[:, :96].flip(1)
    loader = loom.LinkLoader(
        sbm, fanouts=[5], batch_size=32, edge_label_index=given, neg_sampling_ratio=0.0, shuffle=False
    )
    taken = torch.cat([batch.seeds[batch.edge_label_index] for batch in loader], 1)
    assert torch.equal(taken, given)


def test_dropped_target_edges_leave_the_message_graph(sbm):
    store = loom.GraphStore(sbm)
    given = store.edge_index()[:, :64]
    for drop in (False, True):
        loader = loom.LinkLoader(
            sbm, fanouts=[-1], batch_size=64, edge_label_index=given, neg_sampling_ratio=0.0, drop_target_edges=drop
        )
        batch = next(iter(loader))
        ids = batch.n_id
        messages = set(map(tuple, ids[batch.edge_index].t().tolist()))
        targets = set(map(tuple, batch.seeds[batch.edge_label_index].t().tolist()))
        kept = {t for t in targets if t in messages or t[::-1] in messages}
        assert (kept == set()) if drop else (kept == targets)


def test_a_model_learns_the_links_and_is_scored_as_ogb_does(sbm):
    store = loom.GraphStore(sbm)
    eval_index, eval_label = held_out(store, 400)
    torch.manual_seed(0)
    loader = loom.LinkLoader(sbm, fanouts=[10, 5], batch_size=256, seed=1, eval_fanouts=[-1])
    model = loom.nn.GraphSAGE(loader.feat_dim, 32, 32, num_layers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    before = loader.evaluate(model, eval_index, eval_label)
    for epoch in range(3):
        for batch in loader:
            z = model(batch.x, batch.blocks)
            out = (z[batch.edge_label_index[0]] * z[batch.edge_label_index[1]]).sum(-1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(out, batch.edge_label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    after = loader.evaluate(model, eval_index, eval_label, hits_at=[50])
    assert after["positives"] == 400 and after["negatives"] == 400
    assert after["auc"] > max(0.75, before["auc"])
    assert 0 < after["mrr"] <= 1 and 0 <= after["hits@50"] <= 1
    called = loader.evaluate(model, eval_index, eval_label, hits_at=[50], forward=lambda m, b: m(b.x, b.blocks))
    assert called == after


def test_bad_pairs_are_named(sbm):
    with pytest.raises(loom.Error, match=r"argument edge_label_index: pair 1 names node 5000"):
        loom.LinkLoader(sbm, fanouts=[5], edge_label_index=torch.tensor([[0, 5000], [1, 2]]))
    with pytest.raises(loom.Error, match="argument edge_label: want one label per pair"):
        loom.LinkLoader(sbm, fanouts=[5], edge_label_index=torch.tensor([[0], [1]]), edge_label=torch.ones(2))
    with pytest.raises(loom.Error, match="argument edge_label_index: want an integer tensor"):
        loom.LinkLoader(sbm, fanouts=[5], edge_label_index=torch.zeros(3, 2))
    with pytest.raises(loom.Error, match="argument neg_sampling: unknown value 'hard'"):
        loom.LinkLoader(sbm, fanouts=[5], neg_sampling="hard")
    with pytest.raises(TypeError, match="neg_sampling_ratio must be a float"):
        loom.LinkLoader(sbm, fanouts=[5], neg_sampling_ratio="1")
