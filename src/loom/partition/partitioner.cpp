#include "loom/partition/partitioner.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::partition {

std::unique_ptr<Partitioner> make_partitioner(PartitionMethod method, int stream_passes) {
  switch (method) {
    case PartitionMethod::kMetis: return make_metis_partitioner();
    case PartitionMethod::kStream: return make_stream_partitioner(stream_passes);
    case PartitionMethod::kRandom: return make_random_partitioner();
    case PartitionMethod::kHash: return make_hash_partitioner();
    case PartitionMethod::kPtscotch: break;
  }
  throw Error::in_argument("--method",
                           "ptscotch is distributed: run `loom partition --method ptscotch` (under "
                           "mpirun -np P) or comm::partition_store_ptscotch");
}

void check_num_parts(std::int64_t num_parts, std::int64_t num_nodes) {
  if (num_parts < 1)
    throw Error::in_argument("-k", fmt::format("number of parts must be at least 1, got {}", num_parts));
  if (num_parts > num_nodes)
    throw Error::in_argument("-k",
                             fmt::format("number of parts {} exceeds the number of nodes {}", num_parts, num_nodes));
  if (num_parts > (1 << 30)) throw Error::in_argument("-k", fmt::format("number of parts {} is too large", num_parts));
}

std::vector<std::int32_t> assign_parts(const Partitioner& partitioner, const graph::GraphStore& store,
                                       std::int64_t num_parts, std::uint64_t seed) {
  check_num_parts(num_parts, store.num_nodes());
  return partitioner.partition(store, static_cast<int>(num_parts), seed);
}

}  // namespace loom::partition
