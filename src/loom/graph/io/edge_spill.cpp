#include "loom/graph/io/edge_spill.hpp"

#include <cerrno>
#include <cstring>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph::io {

namespace {

std::FILE* open_or_throw(const std::string& path, const char* mode) {
  std::FILE* f = std::fopen(path.c_str(), mode);
  if (f == nullptr) throw Error::in_file(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

}  // namespace

EdgeSpill::EdgeSpill(const std::string& dir, bool weighted)
    : path_(dir + "/edges.spill-" + core::temp_suffix()), weight_path_(path_ + ".weight"), weighted_(weighted) {
  file_ = open_or_throw(path_, "w+b");
  if (weighted_) weight_file_ = open_or_throw(weight_path_, "w+b");
  buffer_.reserve(kBufferIds);
}

EdgeSpill::~EdgeSpill() {
  if (file_) std::fclose(file_);
  if (weight_file_) std::fclose(weight_file_);
  std::remove(path_.c_str());
  if (weighted_) std::remove(weight_path_.c_str());
}

void EdgeSpill::flush() {
  const bool ok =
      std::fwrite(buffer_.data(), sizeof(std::int64_t), buffer_.size(), file_) == buffer_.size() &&
      (!weighted_ || std::fwrite(weights_.data(), sizeof(float), weights_.size(), weight_file_) == weights_.size());
  if (!ok)
    throw Error::in_file(path_, 0,
                         std::string("write failed (the spilled edges of the import): ") + std::strerror(errno));
  buffer_.clear();
  weights_.clear();
}

void EdgeSpill::finish(std::int64_t num_nodes, DenseOrder order) {
  flush();
  if (std::fflush(file_) != 0 || (weighted_ && std::fflush(weight_file_) != 0))
    throw Error::in_file(path_, 0, std::string("write failed: ") + std::strerror(errno));
  num_nodes_ = num_nodes;
  order_ = std::move(order);
  buffer_.shrink_to_fit();
}

void EdgeSpill::replay(const std::function<void(const EdgeChunk&)>& visit) const {
  constexpr std::int64_t kChunk = 1 << 22;  // edges per chunk
  std::vector<std::int64_t> pairs(static_cast<std::size_t>(2 * std::min(kChunk, std::max<std::int64_t>(count_, 1))));
  std::vector<std::int64_t> src(pairs.size() / 2), dst(pairs.size() / 2);
  std::vector<float> weight(weighted_ ? src.size() : 0);
  std::rewind(file_);
  if (weighted_) std::rewind(weight_file_);
  for (std::int64_t done = 0; done < count_;) {
    const std::int64_t n = std::min(kChunk, count_ - done);
    const bool ok = std::fread(pairs.data(), sizeof(std::int64_t), static_cast<std::size_t>(2 * n), file_) ==
                        static_cast<std::size_t>(2 * n) &&
                    (!weighted_ || std::fread(weight.data(), sizeof(float), static_cast<std::size_t>(n),
                                              weight_file_) == static_cast<std::size_t>(n));
    if (!ok) throw Error::in_file(path_, 0, "read failed (the spilled edges of the import)");
    const bool renumber = !order_.rank.empty();
    core::parallel_for(
        n,
        [&](std::int64_t e) {
          src[e] = renumber ? order_.rank[pairs[2 * e]] : pairs[2 * e];
          dst[e] = renumber ? order_.rank[pairs[2 * e + 1]] : pairs[2 * e + 1];
        },
        1 << 14);
    const auto count = static_cast<std::size_t>(n);
    visit({std::span<const std::int64_t>(src).first(count), std::span<const std::int64_t>(dst).first(count),
           weighted_ ? std::span<const float>(weight).first(count) : std::span<const float>()});
    done += n;
  }
}

}  // namespace loom::graph::io
