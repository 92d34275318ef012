#include "loom/core/json_number.hpp"
#include "loom/partition/quality.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::partition {

namespace {
std::vector<std::int64_t> column(const std::vector<PartQuality>& parts, std::int64_t PartQuality::*field) {
  std::vector<std::int64_t> out;
  for (const auto& p : parts) out.push_back(p.*field);
  return out;
}
}  // namespace

EdgeCut edge_cut(const graph::Csr& csr, std::span<const std::int32_t> parts, bool directed) {
  constexpr std::int64_t kBlock = 1 << 14;
  const std::int64_t n = csr.num_rows();
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<std::int64_t> cut(static_cast<std::size_t>(blocks), 0), edges(static_cast<std::size_t>(blocks), 0);
  csr.visit([&](auto view) {
    core::parallel_for_blocks(n, kBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
      std::int64_t c = 0, e = 0;
      for (std::int64_t u = begin; u < end; ++u)
        for (const auto v : view.neighbors(u)) {
          e += v != u;
          c += parts[u] != parts[v];
        }
      cut[block] = c;
      edges[block] = e;
    });
  });
  EdgeCut result;
  for (std::int64_t b = 0; b < blocks; ++b) {
    result.cut += cut[b];
    result.edges += edges[b];
  }
  if (!directed) {
    result.cut /= 2;
    result.edges /= 2;
  }
  return result;
}

double balance(std::span<const std::int64_t> values) {
  if (values.empty()) return 1.0;
  double sum = 0;
  std::int64_t max = 0;
  for (const auto v : values) {
    sum += static_cast<double>(v);
    max = std::max(max, v);
  }
  const double mean = sum / static_cast<double>(values.size());
  return mean == 0 ? 1.0 : static_cast<double>(max) / mean;
}

nlohmann::json PartitionQuality::to_json() const {
  nlohmann::json j;
  j["edge_cut"] = edge_cut.cut;
  j["edges"] = edge_cut.edges;
  j["edge_cut_fraction"] = edge_cut.fraction();
  j["parts"] = nlohmann::json::array();
  for (const auto& p : parts)
    j["parts"].push_back({{"nodes", p.nodes}, {"edges", p.edges}, {"train_nodes", p.train_nodes}, {"halo", p.halo}});
  j["balance"] = {{"nodes", balance(column(parts, &PartQuality::nodes))},
                  {"edges", balance(column(parts, &PartQuality::edges))},
                  {"train_nodes", balance(column(parts, &PartQuality::train_nodes))}};
  std::int64_t halo_total = 0;
  for (const auto& p : parts) halo_total += p.halo;
  j["halo_total"] = halo_total;
  j["seconds"] = {{"partition", partition_seconds}, {"total", total_seconds}};
  return j;
}

PartitionQuality PartitionQuality::from_json(const nlohmann::json& j, const std::string& where) {
  try {
    PartitionQuality q;
    q.edge_cut.cut = core::json_int<std::int64_t>(j.at("edge_cut"), where);
    q.edge_cut.edges = core::json_int<std::int64_t>(j.at("edges"), where);
    for (const auto& p : j.at("parts"))
      q.parts.push_back({core::json_int<std::int64_t>(p.at("nodes"), where),
                         core::json_int<std::int64_t>(p.at("edges"), where),
                         core::json_int<std::int64_t>(p.at("train_nodes"), where),
                         core::json_int<std::int64_t>(p.at("halo"), where)});
    q.partition_seconds = j.at("seconds").at("partition").get<double>();
    q.total_seconds = j.at("seconds").at("total").get<double>();
    return q;
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(where, 0, std::string("malformed quality: ") + e.what());
  }
}

std::string format_quality(const PartitionQuality& q) {
  std::string out = fmt::format("edge cut:   {} of {} edges ({:.2f}%)\n", q.edge_cut.cut, q.edge_cut.edges,
                                100.0 * q.edge_cut.fraction());
  out += fmt::format("balance:    nodes {:.3f}  edges {:.3f}  train {:.3f}  (max/mean)\n",
                     balance(column(q.parts, &PartQuality::nodes)), balance(column(q.parts, &PartQuality::edges)),
                     balance(column(q.parts, &PartQuality::train_nodes)));
  out += fmt::format("time:       partition {:.2f}s, total {:.2f}s\n", q.partition_seconds, q.total_seconds);
  out += fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12}\n", "part", "nodes", "edges", "train", "halo");
  for (std::size_t p = 0; p < q.parts.size(); ++p) {
    const auto& r = q.parts[p];
    out += fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12}\n", p, r.nodes, r.edges, r.train_nodes, r.halo);
  }
  return out;
}

}  // namespace loom::partition
