// Partition quality: what a partitioning costs a distributed trainer. The edge cut (edges whose
// ends lie in different parts) drives halo exchange; halo sizes bound remote feature fetches;
// balance (max / mean over parts, 1.0 = perfect) of nodes, stored edges and training nodes
// bounds the slowest rank. Saved as "quality" in a partitioned store's meta.json and printed
// by `loom partition` and `loom info`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/graph/csr.hpp"

namespace loom::partition {

struct PartQuality {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;        // stored CSR entries of the part's rows
  std::int64_t train_nodes = 0;  // size of the part's "train" split
  std::int64_t halo = 0;         // distinct remote neighbours of the part's nodes
};

struct EdgeCut {
  std::int64_t cut = 0;    // edges across parts (each undirected edge counted once)
  std::int64_t edges = 0;  // all edges other than self-loops, counted the same way
  double fraction() const { return edges == 0 ? 0.0 : static_cast<double>(cut) / static_cast<double>(edges); }
};

struct PartitionQuality {
  EdgeCut edge_cut;
  std::vector<PartQuality> parts;
  double partition_seconds = 0;  // the partitioner alone
  double total_seconds = 0;      // opening the source to the committed output

  nlohmann::json to_json() const;
  static PartitionQuality from_json(const nlohmann::json& j, const std::string& where);
};

// Counts stored entries u->v with parts[u] != parts[v] (halved when `directed` is false,
// since an undirected store holds both directions). Deterministic at any thread count.
EdgeCut edge_cut(const graph::Csr& csr, std::span<const std::int32_t> parts, bool directed);

// max / mean of `values` (1.0 when the mean is 0).
double balance(std::span<const std::int64_t> values);

// The report `loom partition` prints: cut, balance, and a per-part table.
std::string format_quality(const PartitionQuality& quality);

}  // namespace loom::partition
