#include "loom/partition/store_checker.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/info.hpp"
#include "loom/graph/store.hpp"
#include "loom/graph/store_invariants.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::partition {

namespace {

void check_digests(const std::vector<std::string>& folders, bool progress, StoreCheck& report) {
  std::int64_t total = 0;
  for (const auto& folder : folders) {
    if (!std::filesystem::exists(folder + "/meta.json")) continue;
    total += format::digested_bytes(folder);
  }
  core::ProgressBar bar("check digests", total, "bytes");
  bar.set_quiet(!progress);
  for (const auto& folder : folders) {
    if (!std::filesystem::exists(folder + "/meta.json")) {
      report.problems.push_back(folder + "/meta.json: missing");
      continue;
    }
    const auto checks = format::verify_digests(folder, &bar);
    if (checks.empty()) report.undigested.push_back(folder);
    for (const auto& c : checks) {
      ++report.files;
      if (!c.ok())
        report.problems.push_back(
            fmt::format("{}: digest {}, {}/meta.json records {}", c.path_in(folder), c.found, folder, c.expected));
    }
  }
  bar.finish();
  report.bytes = total;
}

// Runs `check`; an error it throws becomes a problem.
template <class F>
void collect(StoreCheck& report, F&& check) {
  try {
    check();
  } catch (const std::exception& e) {
    report.problems.push_back(e.what());
  }
}

// Part k's rows against its range of the topology: the same degrees and neighbours.
void check_part_rows(const PartitionedStore& s, const Part& part, StoreCheck& report) {
  const graph::Csr& topo = s.topology().csr();
  const graph::Csr& rows = part.store().csr();
  const IdRange range = part.range();
  const auto topo_ptr = topo.indptr(), ptr = rows.indptr();
  const std::string where = s.part_dir(part.index()) + "/indices.npy";
  std::optional<std::int64_t> bad;
  topo.visit([&](auto t) {
    rows.visit([&](auto r) {
      std::vector<std::int64_t> first(static_cast<std::size_t>(range.size()), -1);
      core::parallel_for(
          range.size(),
          [&](std::int64_t v) {
            const auto a = t.neighbors(range.begin + v);
            const auto b = r.neighbors(v);
            if (a.size() != b.size() || !std::equal(a.begin(), a.end(), b.begin(),
                                                    [](auto x, auto y) { return static_cast<std::int64_t>(x) == y; }))
              first[v] = v;
          },
          4096);
      for (const auto v : first)
        if (v >= 0) {
          bad = v;
          break;
        }
    });
  });
  if (bad)
    report.problems.push_back(
        fmt::format("{}: row {} (global id {}) differs from that row of topology/ ({} vs {} neighbours)", where, *bad,
                    range.begin + *bad, ptr[*bad + 1] - ptr[*bad],
                    topo_ptr[range.begin + *bad + 1] - topo_ptr[range.begin + *bad]));
}

void check_partitioned(const std::string& dir, StoreCheck& report) {
  std::optional<PartitionedStore> store;
  collect(report, [&] { store = PartitionedStore::open(dir); });
  if (!store) return;
  for (auto& problem : graph::store_invariant_problems(store->topology(), /*symmetry=*/true))
    report.problems.push_back(std::move(problem));
  const auto n = store->meta().graph.num_nodes;
  collect(report, [&] {
    std::vector<std::uint8_t> seen(static_cast<std::size_t>(n), 0);
    const auto map = store->new_to_source();
    for (std::int64_t v = 0; v < n; ++v) {
      if (seen[map[v]]++)
        throw Error::in_file(dir + "/new_to_source.npy", 0,
                             fmt::format("entry {}: source id {} appears twice (not a permutation)", v, map[v]));
    }
  });
  std::map<std::string, std::int64_t> split_sums;
  std::int64_t edges = 0;
  for (int k = 0; k < store->num_parts(); ++k) {
    collect(report, [&] {
      const Part part = store->part(k);
      for (const auto& [name, size] : part.store().meta().splits) split_sums[name] += size;
      edges += part.store().meta().num_edges;
      check_part_rows(*store, part, report);
      for (auto& problem : graph::store_invariant_problems(part.store(), /*symmetry=*/false))
        report.problems.push_back(std::move(problem));
    });
  }
  if (edges != store->meta().graph.num_edges)
    report.problems.push_back(
        fmt::format("{}/meta.json: parts hold {} edges, num_edges is {}", dir, edges, store->meta().graph.num_edges));
  for (const auto& [name, total] : store->meta().graph.splits)
    if (split_sums[name] != total)
      report.problems.push_back(
          fmt::format("{}/meta.json: parts hold {} {} ids, splits.{} is {}", dir, split_sums[name], name, name, total));
}

}  // namespace

nlohmann::json StoreCheck::to_json() const {
  return {{"ok", ok()},     {"problems", problems},     {"files", files},
          {"bytes", bytes}, {"undigested", undigested}, {"seconds", seconds}};
}

StoreCheck check_store(const std::string& dir, bool progress) {
  core::Timer timer;
  StoreCheck report;
  const bool partitioned = graph::store_kind(dir) == graph::StoreKind::kPartitioned;
  std::vector<std::string> folders{dir};
  collect(report, [&] { folders = mapped_folders(dir); });
  check_digests(folders, progress, report);
  if (partitioned)
    check_partitioned(dir, report);
  else
    collect(report, [&] {
      for (auto& problem : graph::store_invariant_problems(graph::GraphStore::open(dir), /*symmetry=*/true))
        report.problems.push_back(std::move(problem));
    });
  report.seconds = timer.seconds();
  return report;
}

}  // namespace loom::partition
