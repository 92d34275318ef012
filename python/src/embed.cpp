// loom.embed and loom.eval: Word2Vec, DeepWalk and node2vec training (Loom's SGNS kernels and
// walkers, the same defaults as `loom embed`) returning the vocabulary and its vectors (Word2Vec)
// or the vectors aligned with the store's rows and the nodes' original ids (DeepWalk, node2vec),
// and the evaluations of `loom eval` returning their figures as dicts.
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/embed/analogy.hpp"
#include "loom/embed/embed_text.hpp"
#include "loom/embed/eval/graph_embedding.hpp"
#include "loom/embed/eval/linkpred_protocol.hpp"
#include "loom/embed/eval/node_classification.hpp"
#include "loom/embed/similarity.hpp"
#include "loom/graph/store.hpp"

namespace loom::python {

namespace {

py::object json_to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

py::tuple words_and_vectors(embed::Embeddings e) {
  auto values = torch::from_blob(e.values.data(), {e.size(), e.dim}, torch::kFloat32).clone();
  return py::make_tuple(std::move(e.words), values);
}

// Embeddings from Python's (words, vectors [len(words), dim]).
embed::Embeddings embeddings_of(std::vector<std::string> words, const torch::Tensor& vectors) {
  LOOM_CHECK_ARG(vectors.dim() == 2 && vectors.size(0) == static_cast<std::int64_t>(words.size()), "vectors",
                 "want [{} words, dim], got {} rows", words.size(), vectors.dim() == 2 ? vectors.size(0) : -1);
  embed::Embeddings e;
  e.words = std::move(words);
  e.dim = vectors.size(1);
  const auto v = vectors.to(torch::kFloat32).contiguous();
  e.values.assign(v.data_ptr<float>(), v.data_ptr<float>() + v.numel());
  return e;
}

embed::SgnsOptions sgns_options(embed::SgnsOptions o, std::int64_t dim, int window, int negative, double sample,
                                int epochs, int threads, std::uint64_t seed, const std::string& kernel) {
  o.dim = dim;
  o.window = window;
  o.negative = negative;
  o.sample = sample;
  o.epochs = epochs;
  o.threads = threads;
  o.seed = seed;
  o.kernel = core::parse_enum(embed::kSgnsKernelNames, kernel, "kernel");
  o.progress = false;
  return o;
}

embed::eval::GraphEmbedOptions graph_embed_options(double p, double q, std::int64_t walks, std::int64_t length,
                                                   std::int64_t dim, int window, int negative, double sample,
                                                   int epochs, int threads, std::uint64_t seed,
                                                   const std::string& kernel) {
  embed::eval::GraphEmbedOptions o;
  o.walks.walks_per_node = walks;
  o.walks.length = length;
  o.walks.p = p;
  o.walks.q = q;
  o.walks.seed = seed;
  o.sgns = sgns_options(o.sgns, dim, window, negative, sample, epochs, threads, seed, kernel);
  o.progress = false;
  return o;
}

// (ids, vectors): the store's original ids and a [nodes, dim] tensor whose row i is node i's
// vector (zeros for a node the walks never reached, which has no edges).
py::tuple graph_embedding(const PathArg& store_path, double p, double q, std::int64_t walks, std::int64_t length,
                          std::int64_t dim, int window, int negative, double sample, int epochs, int threads,
                          std::uint64_t seed, const std::string& kernel) {
  const auto store = graph::GraphStore::open(store_path.string());
  const auto o = graph_embed_options(p, q, walks, length, dim, window, negative, sample, epochs, threads, seed, kernel);
  embed::eval::GraphEmbedding result;
  {
    py::gil_scoped_release release;
    result = embed::eval::train_graph_embedding(store.csr(), embed::eval::node_keys(store), o);
  }
  auto& rows = result.vectors;
  auto vectors = torch::from_blob(rows.data.data(), {rows.num_nodes, rows.dim}, torch::kFloat32).clone();
  for (std::int64_t v = 0; v < rows.num_nodes; ++v)
    if (!rows.present[static_cast<std::size_t>(v)]) vectors[v].zero_();
  return py::make_tuple(original_ids(store), vectors);
}

// Node keys for the evaluations: str keys as given, or an id tensor (what node2vec returns) as
// the keys `loom embed` writes.
std::vector<std::string> keys_of(const py::object& ids) {
  if (!THPVariable_Check(ids.ptr())) return ids.cast<std::vector<std::string>>();
  const auto t = ids.cast<torch::Tensor>().to(torch::kInt64).contiguous();
  LOOM_CHECK_ARG(t.dim() == 1, "keys", "want a 1-D id tensor or a list of str, got {} dimensions", t.dim());
  const std::span<const std::int64_t> id_values(t.data_ptr<std::int64_t>(), static_cast<std::size_t>(t.size(0)));
  std::vector<std::string> keys;
  keys.reserve(id_values.size());
  for (const std::int64_t id : id_values) keys.push_back(std::to_string(id));
  return keys;
}

}  // namespace

void bind_embed(py::module_& m) {
  auto e = m.def_submodule("embed", "Word2Vec, DeepWalk and node2vec (skip-gram with negative sampling)");
  const embed::SgnsOptions graph = embed::eval::GraphEmbedOptions::default_graph_sgns();
  e.def(
      "word2vec",
      [](const PathArg& corpus, std::int64_t dim, int window, int negative, double sample, int epochs,
         std::int64_t min_count, int threads, std::uint64_t seed, const std::string& kernel, bool cbow,
         const std::string& tokenize) {
        embed::EmbedTextOptions o;
        o.corpus = corpus.string();
        o.text.min_count = min_count;
        o.text.tokenize = core::parse_enum(embed::kTokenizeModeNames, tokenize, "tokenize");
        o.sgns = sgns_options(o.sgns, dim, window, negative, sample, epochs, threads, seed, kernel);
        o.sgns.cbow = cbow;
        o.sgns.alpha = cbow ? 0.05 : 0.025;
        embed::Embeddings embeddings;
        {
          py::gil_scoped_release release;
          embed::train_text_embeddings(o, embeddings);
        }
        return words_and_vectors(std::move(embeddings));
      },
      py::arg("corpus"), py::arg("dim") = 100, py::arg("window") = 5, py::arg("negative") = 5, py::arg("sample") = 1e-4,
      py::arg("epochs") = 5, py::arg("min_count") = 5, py::arg("threads") = 2, py::arg("seed") = 1,
      py::arg("kernel") = "batched", py::arg("cbow") = false, py::arg("tokenize") = "lower-letters",
      "(words, vectors [len(words), dim]) trained on a text corpus, one sentence per line (gzip or plain)");
  e.def(
      "deepwalk",
      [](const PathArg& store, std::int64_t walks, std::int64_t length, std::int64_t dim, int window, int negative,
         double sample, int epochs, int threads, std::uint64_t seed, const std::string& kernel) {
        return graph_embedding(store, 1.0, 1.0, walks, length, dim, window, negative, sample, epochs, threads, seed,
                               kernel);
      },
      py::arg("store"), py::arg("walks") = 10, py::arg("length") = 80, py::arg("dim") = graph.dim,
      py::arg("window") = graph.window, py::arg("negative") = graph.negative, py::arg("sample") = graph.sample,
      py::arg("epochs") = graph.epochs, py::arg("threads") = 2, py::arg("seed") = 1,
      py::arg("kernel") = embed::sgns_kernel_name(graph.kernel),
      "(ids, vectors) of DeepWalk on a graph store: uniform random walks + skip-gram; vectors[i] is node i's "
      "(the store's row), ids its original ids (an int64 tensor, or str names)");
  e.def("node2vec", &graph_embedding, py::arg("store"), py::arg("p") = 1.0, py::arg("q") = 1.0, py::arg("walks") = 10,
        py::arg("length") = 80, py::arg("dim") = graph.dim, py::arg("window") = graph.window,
        py::arg("negative") = graph.negative, py::arg("sample") = graph.sample, py::arg("epochs") = graph.epochs,
        py::arg("threads") = 2, py::arg("seed") = 1, py::arg("kernel") = embed::sgns_kernel_name(graph.kernel),
        "(ids, vectors) of node2vec on a graph store: second-order walks (return p, in-out q) + skip-gram; vectors[i] "
        "is node i's (the store's row), ids its original ids (an int64 tensor, or str names)");

  auto v = m.def_submodule("eval", "The evaluations of `loom eval`, returning their figures");
  v.def(
      "analogy",
      [](std::vector<std::string> words, const torch::Tensor& vectors, const PathArg& questions, std::int64_t top) {
        return json_to_python(
            embed::to_json(embed::evaluate_analogy(embeddings_of(std::move(words), vectors), questions.string(), top)));
      },
      py::arg("words"), py::arg("vectors"), py::arg("questions"), py::arg("top") = 30000,
      "word analogy accuracy (questions-words.txt format), overall and per section");
  v.def(
      "similarity",
      [](std::vector<std::string> words, const torch::Tensor& vectors, const PathArg& pairs) {
        return json_to_python(
            embed::to_json(embed::evaluate_similarity(embeddings_of(std::move(words), vectors), pairs.string())));
      },
      py::arg("words"), py::arg("vectors"), py::arg("pairs"), "Spearman and Pearson correlation with human scores");
  v.def(
      "nodeclass",
      [](const py::object& keys, const torch::Tensor& vectors, const PathArg& store_path, std::vector<double> ratios,
         int repeats, std::uint64_t seed) {
        const auto store = graph::GraphStore::open(store_path.string());
        const auto aligned = embed::eval::align_to_store(embeddings_of(keys_of(keys), vectors), store);
        embed::eval::NodeClassOptions o;
        o.train_ratios = std::move(ratios);
        o.repeats = repeats;
        o.seed = seed;
        py::gil_scoped_release release;
        const auto result =
            embed::eval::evaluate_node_classification(aligned.vectors, embed::eval::labels_from_store(store), o);
        py::gil_scoped_acquire acquire;
        return json_to_python(result.to_json());
      },
      py::arg("keys"), py::arg("vectors"), py::arg("store"), py::arg("ratios") = std::vector<double>{0.5},
      py::arg("repeats") = 5, py::arg("seed") = 1,
      "node classification of the store's labels (one-vs-rest logistic regression; macro/micro-F1 per ratio)");
  v.def(
      "linkpred",
      [](const PathArg& store, double p, double q, std::int64_t walks, std::int64_t length, std::int64_t dim,
         int window, int negative, double sample, int epochs, int threads, std::uint64_t seed,
         const std::string& kernel, const std::vector<std::string>& operators, double remove_fraction) {
        embed::eval::LinkPredProtocolOptions o;
        o.store = store.string();
        o.graph =
            graph_embed_options(p, q, walks, length, dim, window, negative, sample, epochs, threads, seed, kernel);
        o.split.remove_fraction = remove_fraction;
        o.split.seed = seed;
        o.operators.clear();
        for (const auto& name : operators)
          o.operators.push_back(core::parse_enum(embed::eval::kEdgeOperatorNames, name, "operators"));
        embed::eval::LinkPredProtocolResult result;
        {
          py::gil_scoped_release release;
          result = embed::eval::run_linkpred(o);
        }
        return json_to_python(result.to_json());
      },
      py::arg("store"), py::arg("p") = 1.0, py::arg("q") = 1.0, py::arg("walks") = 10, py::arg("length") = 80,
      py::arg("dim") = graph.dim, py::arg("window") = graph.window, py::arg("negative") = graph.negative,
      py::arg("sample") = graph.sample, py::arg("epochs") = graph.epochs, py::arg("threads") = 2, py::arg("seed") = 1,
      py::arg("kernel") = embed::sgns_kernel_name(graph.kernel),
      py::arg("operators") = std::vector<std::string>{"hadamard"}, py::arg("remove_fraction") = 0.5,
      "node2vec's link prediction protocol (`loom eval linkpred`): hold out edges, embed the rest with "
      "node2vec (p = q = 1: DeepWalk), ROC-AUC per edge operator");
}

}  // namespace loom::python
