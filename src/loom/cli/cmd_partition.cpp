// `loom partition DIR -k K --method metis|stream|random|hash|ptscotch -o PARTS [--seed S] [--overwrite]`:
// partitions a graph store into a partitioned store and prints the quality report. ptscotch runs
// under `mpirun -np P` (comm/ptscotch_partition.hpp) and also prints what crossed ranks on the
// partition channel; every other method runs in one process, and started by mpirun on more
// ranks it stops on every rank with a message.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/comm/ptscotch_partition.hpp"
#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/write_partitioned.hpp"

namespace loom::cli {

namespace {
void print_written(const partition::PartitionOptions& options, const partition::PartitionedMeta& meta) {
  fmt::print("wrote {}: {} nodes in {} parts ({})\n{}", options.output, meta.graph.num_nodes, meta.num_parts(),
             meta.method, partition::format_quality(meta.quality));
}

int run_ptscotch(const partition::PartitionOptions& options) {
  return comm::run_job([&](comm::Communicator& world) {
    const auto meta = comm::partition_store_ptscotch(world, options);
    const nlohmann::json traffic = world.global_stats(world.stats()).to_json();  // collective
    if (world.rank() != 0) return 0;
    print_written(options, meta);
    fmt::print("partition channel, all ranks ({} ranks; PT-Scotch's own messages not counted): {}\n", world.size(),
               traffic["sum"]["partition"].dump());
    return 0;
  });
}

int run_partition(const partition::PartitionOptions& options) {
  if (options.method == partition::PartitionMethod::kPtscotch) return run_ptscotch(options);
  if (const int ranks = comm::launched_ranks(); ranks > 1)
    throw Error::in_argument("--method",
                             fmt::format("{} runs in one process, but mpirun started {}: run `loom partition` "
                                         "without mpirun, or use --method ptscotch",
                                         core::enum_name(partition::kPartitionMethodNames, options.method), ranks));
  print_written(options, partition::partition_store(options));
  return 0;
}
}  // namespace

void add_partition_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<partition::PartitionOptions>();
  auto* sub = app.add_subcommand("partition", "Partition a graph store into K parts (a partitioned store)");
  sub->add_option("dir", options->source, "Graph store to partition")->required();
  sub->add_option("-k,--parts", options->num_parts, "Number of parts (1 <= K <= nodes)")->required();
  add_enum_option(*sub, "--method", options->method, partition::kPartitionMethodNames,
                  "Partitioner (ptscotch is distributed: under mpirun -np P)");
  sub->add_option("-o,--output", options->output, "Partitioned store to write")->required();
  sub->add_option("--seed", options->seed, "Random seed (metis, stream, random and ptscotch)")->capture_default_str();
  add_build_memory_option(
      *sub, options->memory_bytes,
      "Memory for the topology's rows in flight, e.g. 4G (default: a tenth of the memory available, 256M "
      "to 8G)");
  auto features = std::make_shared<std::string>("copy");
  sub->add_option("--features", *features,
                  "copy: parts hold their feature rows; map: parts read them from the source store (no second copy "
                  "on disk; keep the source where it is)")
      ->check(CLI::IsMember({"copy", "map"}))
      ->capture_default_str()
      ->each([options](const std::string& value) { options->map_features = value == "map"; });
  sub->add_option("--stream-passes", options->stream_passes,
                  "--method stream: passes over the nodes (1 = the label-propagation clusters placed whole; each more "
                  "restreams the nodes)")
      ->capture_default_str();
  sub->add_flag("--overwrite", options->overwrite, "Replace the output if it exists");
  sub->callback([&action, options] { action = [options] { return run_partition(*options); }; });
}

}  // namespace loom::cli
