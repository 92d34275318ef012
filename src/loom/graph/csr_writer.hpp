// Out-of-core CSR construction, for graphs whose edges do not fit in memory: GAP's count-then-
// scatter, in passes. The edges come from an EdgeStream that can be replayed (a generator draws
// them again from the same seeds; an importer reads its spill file again). One pass counts each
// row's entries; then each pass takes the next range of rows whose entries fit `memory_bytes`,
// scatters the edges that land in it in stream order, sorts and de-duplicates each row exactly as
// build_csr() does, and appends those rows to indices.npy (int32 when the ids fit) and weight.npy.
// Peak memory: 16 bytes per node (row counts and indptr) plus one range's entries. The files are
// byte-identical to what build_csr() and write_store_files() write, at every memory size and for
// any chunking of the stream (tests). A row with more entries than fit is a range of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "loom/core/progress.hpp"
#include "loom/graph/build_csr.hpp"

namespace loom::graph {

// One chunk of a stream: edges src[i] -> dst[i] (with weight[i] when weighted), dense ids.
struct EdgeChunk {
  std::span<const std::int64_t> src, dst;
  std::span<const float> weight;  // empty when the stream is unweighted
};

// Edges over nodes [0, num_nodes()), delivered in chunks, the same edges in the same order on
// every replay.
class EdgeStream {
 public:
  virtual ~EdgeStream() = default;
  virtual std::int64_t num_nodes() const = 0;
  virtual bool weighted() const { return false; }
  // Edges in the stream (for progress; 0 when unknown).
  virtual std::int64_t num_edges() const = 0;
  virtual void replay(const std::function<void(const EdgeChunk&)>& visit) const = 0;
};

// An edge list in memory as a stream, in chunks of `chunk_edges` (for small inputs and tests).
class EdgeListStream : public EdgeStream {
 public:
  EdgeListStream(const EdgeList& edges, std::int64_t chunk_edges) : edges_(&edges), chunk_(chunk_edges) {}
  std::int64_t num_nodes() const override { return edges_->num_nodes; }
  bool weighted() const override { return !edges_->weight.empty(); }
  std::int64_t num_edges() const override { return static_cast<std::int64_t>(edges_->src.size()); }
  void replay(const std::function<void(const EdgeChunk&)>& visit) const override;

 private:
  const EdgeList* edges_;
  std::int64_t chunk_;
};

// The memory an out-of-core build uses unless told: a tenth of what is available now
// (core::available_bytes), within [256 MiB, 8 GiB]; 1 GiB where that cannot be read.
std::int64_t default_build_memory();

struct CsrWriteReport {
  std::int64_t num_nodes = 0;
  std::int64_t num_edges = 0;  // stored entries
  std::int64_t input_edges = 0;
  std::int64_t self_loops_removed = 0, duplicates_removed = 0;
  int passes = 0;  // over the stream, the counting pass included
};

// Writes indptr.npy, indices.npy and (weighted streams) weight.npy into `dir`.
CsrWriteReport write_csr_files(const EdgeStream& edges, const CsrBuildOptions& options, const std::string& dir,
                               std::int64_t memory_bytes);

}  // namespace loom::graph
