// "hash": node v goes to part v mod K. Stateless and exactly balanced in node count; it ignores
// structure, so it is the baseline for edge cut and halo size.
#include "loom/core/parallel.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

namespace {
class HashPartitioner final : public Partitioner {
 public:
  std::string name() const override { return "hash"; }
  std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts,
                                      std::uint64_t /*seed*/) const override {
    std::vector<std::int32_t> parts(static_cast<std::size_t>(store.num_nodes()));
    core::parallel_for(
        store.num_nodes(), [&](std::int64_t v) { parts[v] = static_cast<std::int32_t>(v % num_parts); }, 1 << 16);
    return parts;
  }
};
}  // namespace

std::unique_ptr<Partitioner> make_hash_partitioner() { return std::make_unique<HashPartitioner>(); }

}  // namespace loom::partition
