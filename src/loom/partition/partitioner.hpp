// Partitioner: assigns every node of a graph store to one of K parts. Implementations are
// PartitionMethods, one file each, made through make_partitioner(method) (the CLI parses the
// method's name once, kPartitionMethodNames). assign_parts() is the entry point: it checks
// K against the store (-k must be in [1, nodes]) and then calls the partitioner, which may
// assume a valid K. The result is deterministic for a given store, K and seed, at any thread
// count. Part ids are int32 in [0, K).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/graph/store.hpp"

namespace loom::partition {

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string name() const = 0;
  // Part id per node of `store`; 1 <= num_parts <= store.num_nodes().
  virtual std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts,
                                              std::uint64_t seed) const = 0;
};

// METIS k-way (edge-cut objective), balancing nodes, degree and training nodes (DistDGL and
// SALIENT++ style multi-constraint); K = 1 puts every node in part 0.
std::unique_ptr<Partitioner> make_metis_partitioner();
// Every node drawn uniformly from [0, K), seeded per block of nodes.
std::unique_ptr<Partitioner> make_random_partitioner();
// Node id modulo K (exactly balanced node counts; ignores the seed).
std::unique_ptr<Partitioner> make_hash_partitioner();
// Label-propagation clusters placed whole by Fennel's score, then `passes` - 1 restreaming passes
// over the nodes; O(nodes) memory, the balance constraints of metis: for graphs too large for
// METIS (stream_partitioner.cpp).
inline constexpr int kDefaultStreamPasses = 3;
std::unique_ptr<Partitioner> make_stream_partitioner(int passes = kDefaultStreamPasses);

// kPtscotch is distributed (comm/ptscotch_partition.hpp): partition_store takes its assignment.
enum class PartitionMethod { kMetis, kStream, kRandom, kHash, kPtscotch };
inline constexpr core::EnumNames<PartitionMethod, 5> kPartitionMethodNames{{{"metis", PartitionMethod::kMetis},
                                                                            {"stream", PartitionMethod::kStream},
                                                                            {"random", PartitionMethod::kRandom},
                                                                            {"hash", PartitionMethod::kHash},
                                                                            {"ptscotch", PartitionMethod::kPtscotch}}};
// The partitioner of a one-process method (`stream_passes` for kStream); throws Error naming
// --method for kPtscotch.
std::unique_ptr<Partitioner> make_partitioner(PartitionMethod method, int stream_passes = kDefaultStreamPasses);

// Throws Error::in_argument("-k", ...) unless 1 <= num_parts <= num_nodes.
void check_num_parts(std::int64_t num_parts, std::int64_t num_nodes);

// check_num_parts, then the partitioner.
std::vector<std::int32_t> assign_parts(const Partitioner& partitioner, const graph::GraphStore& store,
                                       std::int64_t num_parts, std::uint64_t seed);

}  // namespace loom::partition
