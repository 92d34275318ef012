// `loom import ogb`: an OGB node-property dataset directory into a GraphData, in either layout
// OGB ships: the binary one of its large datasets (raw/data.npz, raw/node-label.npz:
// ogb_binary.hpp), used where raw/data.npz exists, or the CSV one of the small datasets:
//   raw/edge.csv[.gz]            src,dst per row (each undirected edge once), ids in [0, nodes)
//   raw/num-node-list.csv[.gz]   the node count;  raw/num-edge-list.csv[.gz]  the edge row count
//   raw/node-feat.csv[.gz]       optional: one row of comma floats per node
//   raw/node-label.csv[.gz]      optional: a class id per row (-1/nan = unlabeled) or 0/1 columns
//   split/<kind>/{train,valid,test}.csv[.gz]   optional: node ids, or split/<kind>/split_dict.pt
//                                (torch.save'd: split_dict.hpp); `split` chooses the kind when
//                                several exist (required then); all three splits required.
// The counts in num-*-list must match the rows read; any mismatch, bad field or id out of
// range throws loom::Error naming the file and line.
#pragma once

#include <optional>
#include <string>

#include "loom/graph/io/import_common.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

struct OgbImportOptions {
  std::string dir;
  EdgePolicy policy;
  std::string split;            // split kind (folder under split/); "" = the only one, if any
  std::optional<float> nan_as;  // replaces feature values that are not finite (else they are an error)
};

// The graph with its edges spilled into `spill_dir` as they are read (write_imported_store), and
// the same assembled in memory.
ImportedGraph read_ogb(const OgbImportOptions& options, const std::string& spill_dir);
GraphData import_ogb(const OgbImportOptions& options);

// The split kinds present under DIR/split (sorted), empty when there is no split folder.
std::vector<std::string> ogb_split_kinds(const std::string& dir);

}  // namespace loom::graph::io
