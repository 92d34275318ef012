// `loom partition DIR -k K --method metis|random|hash -o PARTS [--seed S] [--overwrite]`:
// partitions a graph store into a partitioned store and prints the quality report.
#include <memory>

#include <fmt/format.h>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/memory.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/write_partitioned.hpp"

namespace loom::cli {

namespace {
int run_partition(const partition::PartitionOptions& options) {
  const auto meta = partition::partition_store(options);
  fmt::print("wrote {}: {} nodes in {} parts ({})\n{}", options.output, meta.num_nodes, meta.num_parts(), meta.method,
             partition::format_quality(meta.quality));
  return 0;
}
}  // namespace

void add_partition_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<partition::PartitionOptions>();
  auto* sub = app.add_subcommand("partition", "Partition a graph store into K parts (a partitioned store)");
  sub->add_option("dir", options->source, "Graph store to partition")->required();
  sub->add_option("-k,--parts", options->num_parts, "Number of parts (1 <= K <= nodes)")->required();
  sub->add_option("--method", options->method,
                  fmt::format("Partitioner: {}", fmt::join(partition::partitioner_names(), ", ")))
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Partitioned store to write")->required();
  sub->add_option("--seed", options->seed, "Random seed (metis, stream and random)")->capture_default_str();
  add_parsed_option(*sub, "--build-memory", options->memory_bytes,
                    [](const std::string& text) { return core::parse_memory_size(text, "--build-memory"); },
                    "Memory for the topology's rows in flight, e.g. 4G (default 1G)")
      ->option_text("SIZE");
  auto features = std::make_shared<std::string>("copy");
  sub->add_option("--features", *features,
                  "copy: parts hold their feature rows; map: parts read them from the source store (no second copy "
                  "on disk; keep the source where it is)")
      ->check(CLI::IsMember({"copy", "map"}))
      ->capture_default_str()
      ->each([options](const std::string& value) { options->map_features = value == "map"; });
  sub->add_option("--stream-passes", options->stream_passes,
                  "--method stream: passes over the nodes (1 = Fennel's one pass; each more restreams them)")
      ->capture_default_str();
  sub->add_flag("--overwrite", options->overwrite, "Replace the output if it exists");
  sub->callback([&action, options] { action = [options] { return run_partition(*options); }; });
}

}  // namespace loom::cli
