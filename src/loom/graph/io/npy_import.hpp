// `loom import npy`: a directory of NumPy arrays into a GraphData.
//   src.npy + dst.npy (integer edge end points)  or  indptr.npy + indices.npy (a CSR)
//   feat.npy       optional, 2-D float16/float32/float64 [nodes, dim]
//   feat.npz       or the features as a SciPy sparse matrix (scipy.sparse.save_npz of a
//                  csr_matrix), kept sparse: stored in the sparse layout unless asked dense
//   label.npy      optional, 1-D class ids (-1 or NaN = unlabeled) or 2-D 0/1 matrix (multi-label)
//   train_idx.npy / valid_idx.npy (or PyG's val_idx.npy) / test_idx.npy   optional 1-D integer node ids
//   (any other .npy file in the directory is named in a warning: it is not read)
//   orig_id.npy    optional 1-D integer original id of each node
// The node count is `num_nodes` if given, else the CSR's rows, else the rows of feat/label/
// orig_id, else the largest edge id + 1; every array present must agree with it. Ids are used
// as given (dense). Any problem throws loom::Error naming the file (and entry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loom/format/npy.hpp"
#include "loom/graph/io/import_common.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

struct NpyImportOptions {
  std::string dir;
  EdgePolicy policy;
  std::int64_t num_nodes = -1;  // -1: inferred
  std::optional<float> nan_as;  // replaces feature values that are not finite (else they are an error)
};

// The graph with its edges read from the mapped arrays on every replay (write_imported_store),
// and the same assembled in memory.
ImportedGraph read_npy(const NpyImportOptions& options);
GraphData import_npy(const NpyImportOptions& options);

// The edges of a mapped int [2, E] array (row 0 sources, row 1 targets: PyG's and OGB's
// edge_index), every id checked in [0, num_nodes) (Error naming the file and entry), read from
// the mapping chunk by chunk on every replay.
std::unique_ptr<EdgeStream> mapped_edge_index(const format::NpyArray& edge_index, std::int64_t num_nodes);

}  // namespace loom::graph::io
