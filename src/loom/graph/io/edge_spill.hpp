// EdgeSpill: an importer's edges, appended to a temporary file as they are parsed (int64 pairs,
// float weights in a second file), then replayed from it in chunks as often as the out-of-core
// CSR writer asks (graph/csr_writer.hpp), renumbered on the way through the importer's final
// DenseOrder when it has one (provisional ids from parsing -> sorted dense ids). Memory: one
// buffer of edges. The files are removed when the spill is destroyed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "loom/graph/csr_writer.hpp"
#include "loom/graph/io/id_remap.hpp"

namespace loom::graph::io {

class EdgeSpill : public EdgeStream {
 public:
  // Files "<dir>/edges.spill-*" (and weights); `dir` must exist.
  EdgeSpill(const std::string& dir, bool weighted);
  ~EdgeSpill() override;
  EdgeSpill(const EdgeSpill&) = delete;
  EdgeSpill& operator=(const EdgeSpill&) = delete;

  void add(std::int64_t src, std::int64_t dst, float weight = 0.0f) {
    buffer_.push_back(src);
    buffer_.push_back(dst);
    if (weighted_) weights_.push_back(weight);
    ++count_;
    if (buffer_.size() >= kBufferIds) flush();
  }
  std::int64_t size() const { return count_; }
  // Ends the writing: every edge is over nodes [0, num_nodes) after `order` (empty = as added).
  void finish(std::int64_t num_nodes, DenseOrder order = {});

  std::int64_t num_nodes() const override { return num_nodes_; }
  bool weighted() const override { return weighted_; }
  std::int64_t num_edges() const override { return count_; }
  void replay(const std::function<void(const EdgeChunk&)>& visit) const override;

 private:
  static constexpr std::size_t kBufferIds = std::size_t{1} << 21;  // 1M edges
  void flush();
  std::string path_, weight_path_;
  std::FILE* file_ = nullptr;
  std::FILE* weight_file_ = nullptr;
  bool weighted_;
  std::vector<std::int64_t> buffer_;
  std::vector<float> weights_;
  std::int64_t count_ = 0, num_nodes_ = 0;
  DenseOrder order_;
};

}  // namespace loom::graph::io
