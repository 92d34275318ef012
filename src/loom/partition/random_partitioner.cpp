// "random": each node's part is drawn uniformly from [0, K); nodes are drawn in fixed blocks,
// each with its own stream rng.split(block), so the result does not depend on the thread count.
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

namespace {
constexpr std::int64_t kBlock = 1 << 14;

class RandomPartitioner final : public Partitioner {
 public:
  std::string name() const override { return "random"; }
  std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts,
                                      std::uint64_t seed) const override {
    std::vector<std::int32_t> parts(static_cast<std::size_t>(store.num_nodes()));
    const core::Rng rng(seed);
    core::parallel_for_blocks(store.num_nodes(), kBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
      core::Rng local = rng.split(static_cast<std::uint64_t>(block));
      for (std::int64_t v = begin; v < end; ++v)
        parts[v] = static_cast<std::int32_t>(local.below(static_cast<std::uint64_t>(num_parts)));
    });
    return parts;
  }
};
}  // namespace

std::unique_ptr<Partitioner> make_random_partitioner() { return std::make_unique<RandomPartitioner>(); }

}  // namespace loom::partition
