// Small graph stores built in-test for the partition tests: two cliques joined by one edge,
// with features, labels, splits and original ids that let every mapping be checked exactly; and
// SBM stores of planted communities, for partition quality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/graph/store.hpp"

namespace loom::test {

// Two cliques of `size` nodes each, interleaved: clique A holds the even ids, clique B the odd
// ids; the bridge joins node 0 and node 1. Undirected, canonical CSR. Node v has features
// (v, 2v, -v), label v % 3, original id 1000 + 7v; train = multiples of 3, valid = v % 3 == 1,
// test = the rest.
inline graph::GraphData two_cliques(std::int64_t size = 6) {
  graph::EdgeList edges;
  edges.num_nodes = 2 * size;
  for (std::int64_t parity = 0; parity < 2; ++parity)
    for (std::int64_t i = 0; i < size; ++i)
      for (std::int64_t j = i + 1; j < size; ++j) {
        edges.src.push_back(2 * i + parity);
        edges.dst.push_back(2 * j + parity);
      }
  edges.src.push_back(0);
  edges.dst.push_back(1);
  auto built = graph::build_csr(edges, {});
  graph::GraphData d;
  d.indptr = std::move(built.indptr);
  d.indices = std::move(built.indices);
  const std::int64_t n = 2 * size;
  d.feat_dim = 3;
  for (std::int64_t v = 0; v < n; ++v) {
    d.feat.insert(d.feat.end(), {static_cast<float>(v), static_cast<float>(2 * v), static_cast<float>(-v)});
    d.label.push_back(v % 3);
    d.orig_id.push_back(1000 + 7 * v);
    d.splits[v % 3 == 0 ? "train" : v % 3 == 1 ? "valid" : "test"].push_back(v);
  }
  d.num_classes = 3;
  d.id_map_note = "test ids";
  return d;
}

// A random undirected graph (seeded, deterministic) with the same decorations, some
// self-loops kept, and positive edge weights when `weighted`.
inline graph::GraphData random_graph(std::int64_t nodes, std::int64_t edges, std::uint64_t seed,
                                     bool weighted = false) {
  core::Rng rng(seed);
  graph::EdgeList list;
  list.num_nodes = nodes;
  for (std::int64_t e = 0; e < edges; ++e) {
    list.src.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nodes))));
    list.dst.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nodes))));
    if (weighted) list.weight.push_back(1.0f + static_cast<float>(e % 97));
  }
  graph::CsrBuildOptions options;
  options.self_loops = graph::SelfLoopPolicy::kKeep;
  auto built = graph::build_csr(list, options);
  graph::GraphData d;
  d.indptr = std::move(built.indptr);
  d.indices = std::move(built.indices);
  d.edge_weight = std::move(built.weight);
  d.feat_dim = 3;
  for (std::int64_t v = 0; v < nodes; ++v) {
    d.feat.insert(d.feat.end(), {static_cast<float>(v), static_cast<float>(2 * v), static_cast<float>(-v)});
    d.label.push_back(v % 3);
    d.orig_id.push_back(1000 + 7 * v);
    d.splits[v % 3 == 0 ? "train" : v % 3 == 1 ? "valid" : "test"].push_back(v);
  }
  d.num_classes = 3;
  return d;
}

// An SBM of `nodes` nodes in `classes` communities (one feature), generated into `dir` and opened.
inline graph::GraphStore open_sbm(const std::string& dir, std::int64_t nodes, int classes, double avg_degree,
                                  double homophily, std::uint64_t seed) {
  graph::generate::SbmOptions o;
  o.nodes = nodes;
  o.classes = classes;
  o.avg_degree = avg_degree;
  o.homophily = homophily;
  o.feat_dim = 1;
  o.seed = seed;
  graph::generate::generate_sbm_store(o, dir, {});
  return graph::GraphStore::open(dir);
}

}  // namespace loom::test
