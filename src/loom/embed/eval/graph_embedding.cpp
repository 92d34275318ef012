#include "loom/embed/eval/graph_embedding.hpp"

#include <filesystem>

#include <absl/container/flat_hash_map.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/core/timer.hpp"
#include "loom/embed/corpus.hpp"

namespace loom::embed::eval {

std::vector<std::string> node_keys(const graph::GraphStore& store) {
  if (store.meta().id_map == graph::IdMapKind::kNames) return store.original_names();
  const auto ids = store.original_ids();
  std::vector<std::string> keys(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) keys[i] = std::to_string(ids[i]);
  return keys;
}

std::vector<std::string> node_keys(const graph::GraphData& data) {
  if (!data.names.empty()) return data.names;
  std::vector<std::string> keys(static_cast<std::size_t>(data.num_rows()));
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = std::to_string(data.orig_id.empty() ? static_cast<std::int64_t>(i) : data.orig_id[i]);
  return keys;
}

Alignment align_to_store(const Embeddings& embeddings, const graph::GraphStore& store) {
  return align_to_keys(embeddings, node_keys(store));
}

Alignment align_to_keys(const Embeddings& embeddings, const std::vector<std::string>& keys) {
  absl::flat_hash_map<std::string, std::int64_t> row_of;
  row_of.reserve(keys.size());
  for (std::size_t r = 0; r < keys.size(); ++r) row_of.emplace(keys[r], static_cast<std::int64_t>(r));
  Alignment a;
  auto& v = a.vectors;
  v.num_nodes = static_cast<std::int64_t>(keys.size());
  v.dim = embeddings.dim;
  v.data.assign(static_cast<std::size_t>(v.num_nodes * v.dim), 0.0f);
  v.present.assign(static_cast<std::size_t>(v.num_nodes), 0);
  for (std::int64_t i = 0; i < embeddings.size(); ++i) {
    const auto it = row_of.find(embeddings.words[static_cast<std::size_t>(i)]);
    if (it == row_of.end()) {
      ++a.unknown_keys;
      continue;
    }
    const auto row = embeddings.row(i);
    std::copy(row.begin(), row.end(), v.data.begin() + it->second * v.dim);
    a.matched += v.present[static_cast<std::size_t>(it->second)] ? 0 : 1;
    v.present[static_cast<std::size_t>(it->second)] = 1;
  }
  return a;
}

SgnsOptions GraphEmbedOptions::default_graph_sgns() {
  SgnsOptions o;
  o.dim = 128;
  o.window = 10;
  o.negative = 5;
  o.epochs = 1;
  o.sample = 1e-3;
  o.kernel = SgnsKernel::kShared;
  o.init_range = 1.0;
  o.label = "embed";
  return o;
}

namespace {

// This rank's start nodes (its contiguous share) where the walks are spread over ranks; with no
// communicator, none (every node starts walks).
std::vector<std::int64_t> rank_starts(const graph::Csr& csr, const comm::Communicator* comm) {
  std::vector<std::int64_t> starts;
  if (comm == nullptr) return starts;
  const std::int64_t n = csr.num_rows(), k = comm->size(), r = comm->rank();
  LOOM_CHECK(n >= k, "the graph has {} nodes, fewer than the {} ranks", n, k);
  for (std::int64_t v = n * r / k; v < n * (r + 1) / k; ++v) starts.push_back(v);
  return starts;
}

// The embeddings by csr row: a node no walk visited has a zero row and is not present.
NodeVectors vectors_by_node(const Embeddings& embeddings, const EncodedCorpus& encoded, std::int64_t num_nodes,
                            std::int64_t dim) {
  NodeVectors v;
  v.num_nodes = num_nodes;
  v.dim = dim;
  v.data.assign(static_cast<std::size_t>(v.num_nodes * v.dim), 0.0f);
  v.present.assign(static_cast<std::size_t>(v.num_nodes), 0);
  for (std::int32_t id = 0; id < encoded.vocab.size(); ++id) {
    const auto node = encoded.source_token[static_cast<std::size_t>(id)];
    const auto row = embeddings.row(id);
    std::copy(row.begin(), row.end(), v.data.begin() + static_cast<std::int64_t>(node) * v.dim);
    v.present[static_cast<std::size_t>(node)] = 1;
  }
  return v;
}

}  // namespace

GraphEmbedding train_graph_embedding(const graph::Csr& csr, const std::vector<std::string>& keys,
                                     const GraphEmbedOptions& options) {
  sample::walk::check_walk_options(options.walks);
  check(options.sgns);
  LOOM_CHECK(static_cast<std::int64_t>(keys.size()) == csr.num_rows(), "{} node keys for {} rows", keys.size(),
             csr.num_rows());
  core::set_num_threads(options.sgns.threads);

  GraphEmbedding result;
  // Distributed: each rank walks from its own contiguous share of the start nodes and trains on
  // those walks; node counts are summed over ranks so that every rank builds the same vocabulary.
  const comm::Communicator* comm =
      options.sync.comm != nullptr && options.sync.comm->size() > 1 ? options.sync.comm : nullptr;
  const std::vector<std::int64_t> starts = rank_starts(csr, comm);
  // Every walk is held (int32 node ids), then encoded once more as the corpus (word ids).
  const double walk_nodes =
      static_cast<double>(comm != nullptr ? static_cast<std::int64_t>(starts.size()) : csr.num_rows()) *
      static_cast<double>(options.walks.walks_per_node) * static_cast<double>(options.walks.length);
  core::check_memory_for(
      walk_nodes * 2 * sizeof(std::int32_t), "--walks",
      fmt::format("{} walks of {} nodes from each of the {} start nodes", options.walks.walks_per_node,
                  options.walks.length, comm != nullptr ? static_cast<std::int64_t>(starts.size()) : csr.num_rows()));
  auto walks = sample::walk::generate_walks(csr, options.walks, starts);
  result.walk_steps = walks.steps;
  result.walk_seconds = walks.seconds;
  spdlog::info("walks: {} of length {} ({}), {} steps in {:.2f}s, {:.3g} steps/s", walks.num_walks, walks.length,
               options.walks.second_order() ? fmt::format("node2vec p={} q={}", options.walks.p, options.walks.q)
                                            : std::string("uniform"),
               walks.steps, walks.seconds, walks.steps_per_second());
  const auto offsets = sample::walk::compact_walks(walks);
  const auto sum_over_ranks = [comm](std::vector<std::int64_t>& counts) {
    if (comm != nullptr) comm->allreduce_sum(counts, comm::Channel::embeddings);
  };
  const auto encoded = encode_sequences(walks.nodes, offsets, keys, /*min_count=*/1, sum_over_ranks);
  walks = {};  // the corpus holds its own copy

  auto sgns = options.sgns;
  sgns.progress = options.progress;
  SgnsModel model = init_sgns_model(encoded.vocab.size(), sgns);
  SyncOptions sync = options.sync;
  sync.local_corpus = comm != nullptr;
  result.train =
      train_sgns_checkpointed(encoded.corpus, encoded.vocab.counts(), sgns, sync, options.checkpoints, model);
  spdlog::info("trained skip-gram on {} nodes: {:.2f}s, {:.0f} words/s, loss {:.4f}", encoded.vocab.size(),
               result.train.seconds, result.train.words_per_second, result.train.loss);

  result.embeddings = to_embeddings(encoded.vocab, model.input);
  result.vectors = vectors_by_node(result.embeddings, encoded, csr.num_rows(), sgns.dim);
  return result;
}

EmbedGraphResult run_embed_graph(const EmbedGraphOptions& options) {
  sample::walk::check_walk_options(options.graph.walks);
  check(options.graph.sgns);
  check(options.graph.checkpoints);
  LOOM_CHECK_ARG(!options.output.empty(), "-o", "an output path is required");
  const auto parent = std::filesystem::absolute(options.output).parent_path();
  LOOM_CHECK_ARG(std::filesystem::is_directory(parent), "-o", "directory '{}' does not exist", parent.string());
  const auto store = graph::GraphStore::open(options.store);
  if (store.meta().partition)
    throw Error::in_file(options.store, 0, "is one partition of a partitioned store; embed the whole graph");

  core::install_stop_handlers();
  const auto embedding = train_graph_embedding(store.csr(), node_keys(store), options.graph);
  EmbedGraphResult r;
  r.train = embedding.train;
  if (r.train.stopped_by != 0) return r;
  if (options.graph.sync.comm == nullptr || options.graph.sync.comm->rank() == 0)
    write_embeddings(options.output, options.format, embedding.embeddings);
  r.nodes = store.num_nodes();
  r.vectors = embedding.embeddings.size();
  r.walk_steps = embedding.walk_steps;
  r.walk_seconds = embedding.walk_seconds;
  r.walk_steps_per_second =
      embedding.walk_seconds > 0 ? static_cast<double>(embedding.walk_steps) / embedding.walk_seconds : 0;
  return r;
}

}  // namespace loom::embed::eval
