#include "loom/sample/block.hpp"

#include "loom/core/error.hpp"

namespace loom::sample {

void validate(const SampledBatch& batch) {
  LOOM_CHECK(!batch.blocks.empty(), "sampled batch has no blocks");
  LOOM_CHECK(static_cast<std::int64_t>(batch.input_nodes.size()) == batch.blocks.front().num_src,
             "sampled batch: {} input nodes but blocks[0] has {} sources", batch.input_nodes.size(),
             batch.blocks.front().num_src);
  LOOM_CHECK(static_cast<std::int64_t>(batch.seeds.size()) == batch.blocks.back().num_dst,
             "sampled batch: {} seeds but the last block has {} destinations", batch.seeds.size(),
             batch.blocks.back().num_dst);
  for (std::size_t i = 0; i < batch.seeds.size(); ++i) {
    LOOM_CHECK(batch.input_nodes[i] == batch.seeds[i], "sampled batch: input node {} is not seed {}", i, i);
  }
  std::int64_t edges = 0;
  for (std::size_t l = 0; l < batch.blocks.size(); ++l) {
    const Block& b = batch.blocks[l];
    LOOM_CHECK(b.num_dst >= 0 && b.num_dst <= b.num_src, "block {}: {} destinations but {} sources", l, b.num_dst,
               b.num_src);
    LOOM_CHECK(static_cast<std::int64_t>(b.indptr.size()) == b.num_dst + 1, "block {}: indptr has {} entries, want {}",
               l, b.indptr.size(), b.num_dst + 1);
    LOOM_CHECK(b.indptr.front() == 0 && b.indptr.back() == b.num_edges(), "block {}: indptr ends do not match {} edges",
               l, b.num_edges());
    for (std::int64_t i = 0; i < b.num_dst; ++i) {
      LOOM_CHECK(b.indptr[i] <= b.indptr[i + 1], "block {}: indptr decreases at row {}", l, i);
    }
    for (const std::int32_t s : b.indices) {
      LOOM_CHECK(s >= 0 && s < b.num_src, "block {}: source id {} outside [0, {})", l, s, b.num_src);
    }
    if (l + 1 < batch.blocks.size()) {
      LOOM_CHECK(batch.blocks[l + 1].num_src == b.num_dst, "block {} has {} destinations but block {} has {} sources",
                 l, b.num_dst, l + 1, batch.blocks[l + 1].num_src);
    }
    edges += b.num_edges();
  }
  LOOM_CHECK(edges == batch.num_sampled_edges, "sampled batch counts {} edges, blocks hold {}", batch.num_sampled_edges,
             edges);
}

}  // namespace loom::sample
