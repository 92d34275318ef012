// OGB's binary layout of its large node-property datasets (ogbn-papers100M ships it; OGB's
// read_binary_graph_raw reads it):
//   raw/data.npz        edge_index int64 [2, E] (row 0 sources, row 1 targets), num_nodes_list
//                       [1], num_edges_list [1], node_feat float [N, F] (optional), node_year
//                       int [N, 1] (optional, kept as the node array node_year)
//   raw/node-label.npz  node_label float [N, 1] (optional), NaN = unlabelled
// Members stored (np.savez) or deflated (np.savez_compressed) are read as streams: the edges are
// spilled as they are read, the features copied into the store when it is written (memory
// O(nodes) plus buffers). Any mismatch of counts, id out of range or malformed member throws
// Error naming the archive and array.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/graph/io/import_common.hpp"

namespace loom::graph::io {

// Whether RAW (an OGB raw/ folder) holds the binary layout (data.npz).
bool has_ogb_binary(const std::string& raw);

// Reads RAW's binary layout into `g` (edges spilled into `spill_dir`, features streamed, labels
// and node_year in memory); adds nodes, edge_rows and unlabeled_nodes to `counts`.
void read_ogb_binary(const std::string& raw, std::optional<float> nan_as, const std::string& spill_dir,
                     ImportedGraph& g, nlohmann::json& counts);

}  // namespace loom::graph::io
