#include "loom/partition/partitioner.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::partition {

namespace {
struct Entry {
  const char* name;
  std::unique_ptr<Partitioner> (*make)();
};
constexpr Entry kRegistry[] = {
    {"metis", make_metis_partitioner},
    {"stream", [] { return make_stream_partitioner(); }},
    {"random", make_random_partitioner},
    {"hash", make_hash_partitioner},
};
}  // namespace

std::vector<std::string> partitioner_names() {
  std::vector<std::string> names;
  for (const auto& e : kRegistry) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<Partitioner> make_partitioner(const std::string& name) {
  for (const auto& e : kRegistry)
    if (name == e.name) return e.make();
  if (name == "ptscotch")
    throw Error::in_argument("--method",
                             "ptscotch is distributed: run `loom partition --method ptscotch` (under "
                             "mpirun -np P) or comm::partition_store_ptscotch");
  throw Error::in_argument("--method", fmt::format("unknown partitioning method '{}' (known: {})", name,
                                                   fmt::join(partitioner_names(), ", ")));
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
