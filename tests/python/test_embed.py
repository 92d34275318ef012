"""loom.embed and loom.eval from Python: Word2Vec on a small corpus, DeepWalk/node2vec on a graph
store, their vectors as tensors keyed by word or original node id, and the evaluations' figures."""
import torch

import loom


def test_word2vec_returns_the_vocabulary_and_its_vectors(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(["the cat sat on the mat", "the dog sat on the log"] * 200) + "\n")
    words, vectors = loom.embed.word2vec(str(corpus), dim=16, epochs=2, min_count=1, threads=1)
    assert set(words) == {"the", "cat", "sat", "on", "mat", "dog", "log"}
    assert words[0] == "the"  # by frequency
    assert vectors.shape == (7, 16) and vectors.dtype == torch.float32
    cos = torch.nn.functional.cosine_similarity
    v = dict(zip(words, vectors))
    assert cos(v["cat"], v["dog"], dim=0) > cos(v["cat"], v["on"], dim=0) - 1.0  # trained, finite
    assert torch.isfinite(vectors).all()


def test_graph_embeddings_classify_the_planted_communities(sbm):
    ids, vectors = loom.embed.node2vec(sbm, p=0.5, q=2.0, walks=4, length=20, dim=16, threads=1)
    store = loom.GraphStore(sbm)
    assert torch.equal(ids, store.original_ids) and vectors.shape == (1200, 16)  # row i: node i
    scores = loom.eval.nodeclass(ids, vectors, sbm, ratios=[0.5], repeats=2)
    assert scores["ratios"][0]["micro_f1"] > 0.8  # four planted communities, homophilous edges
    # The rows are the nodes': a node's vector is nearer its neighbours' than a random node's.
    unit = torch.nn.functional.normalize(vectors, dim=1)
    neighbours = (unit[store.indices[store.indptr[0] : store.indptr[1]].long()] @ unit[0]).mean()
    assert neighbours > (unit @ unit[0]).mean()
    ids_dw, vectors_dw = loom.embed.deepwalk(sbm, walks=2, length=10, dim=8, threads=1)
    assert torch.equal(ids_dw, ids) and vectors_dw.shape == (1200, 8)


def test_bad_options_name_the_python_keyword(sbm):
    try:
        loom.embed.deepwalk(sbm, length=0)
        raise AssertionError("accepted")
    except loom.Error as e:
        assert "length" in str(e) and "--" not in str(e), str(e)


def test_link_prediction_protocol(sbm):
    result = loom.eval.linkpred(sbm, walks=4, length=20, dim=16, threads=1, operators=["hadamard", "l2"])
    assert result["removed_edges"] > 0 and result["total_edges"] > result["removed_edges"]
    assert set(result["auc"]) == {"hadamard", "l2"}
    assert result["auc"]["hadamard"]["auc"] > 0.6  # planted communities make held-out edges predictable
    try:
        loom.eval.linkpred(sbm, operators=["cosine"])
        raise AssertionError("accepted")
    except loom.Error as e:
        assert "operator" in str(e) and "--" not in str(e), str(e)
