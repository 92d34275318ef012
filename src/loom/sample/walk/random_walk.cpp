#include "loom/sample/walk/random_walk.hpp"

#include <atomic>
#include <cmath>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/sample/walk/walk_kernel.hpp"

namespace loom::sample::walk {

namespace {

constexpr std::int64_t kWalksPerBlock = 256;

template <class IdT>
std::int64_t first_unsorted_row(const graph::CsrView<IdT>& g) {
  std::atomic<std::int64_t> found{-1};
  core::parallel_for(g.num_rows(), [&](std::int64_t v) {
    if (found.load(std::memory_order_relaxed) >= 0) return;
    const auto row = g.neighbors(v);
    for (std::size_t i = 1; i < row.size(); ++i) {
      if (row[i] < row[i - 1]) {
        std::int64_t none = -1;
        found.compare_exchange_strong(none, v, std::memory_order_relaxed);
        return;
      }
    }
  });
  return found.load();
}

}  // namespace

void check_walk_options(const WalkOptions& options) {
  LOOM_CHECK_ARG(options.walks_per_node >= 1, "--walks", "walks per node must be at least 1, got {}",
                 options.walks_per_node);
  LOOM_CHECK_ARG(options.length >= 2, "--length",
                 "walk length must be at least 2, got {} (a walk of one node takes no step: no pair to train on)",
                 options.length);
  LOOM_CHECK_ARG(std::isfinite(options.p) && options.p > 0, "--p", "return parameter p must be > 0, got {}", options.p);
  LOOM_CHECK_ARG(std::isfinite(options.q) && options.q > 0, "--q", "in-out parameter q must be > 0, got {}", options.q);
}

WalkGenerator::WalkGenerator(const graph::Csr& csr, const WalkOptions& options, std::vector<std::int64_t> start_nodes)
    : csr_(csr), options_(options), starts_(std::move(start_nodes)) {
  check_walk_options(options_);
  const std::int64_t n = csr.num_rows();
  LOOM_CHECK(csr.num_cols() == n, "random walks need a square adjacency (rows == ids), got {} rows and {} ids", n,
             csr.num_cols());
  LOOM_CHECK(graph::fits_int32(n), "random walks store int32 node ids; the graph has {} nodes", n);
  if (starts_.empty()) {
    starts_.resize(static_cast<std::size_t>(n));
    std::iota(starts_.begin(), starts_.end(), std::int64_t{0});
  } else {
    for (const auto s : starts_)
      LOOM_CHECK_ARG(s >= 0 && s < n, "start nodes", "start node {} is not a node id in [0, {})", s, n);
  }
  if (options_.second_order()) {
    const auto bad = csr.visit([](auto g) { return first_unsorted_row(g); });
    LOOM_CHECK(bad < 0, "node2vec walks need sorted CSR rows; row {} is not sorted", bad);
  }
  if (options_.shuffle) {
    const auto m = static_cast<std::int64_t>(starts_.size());
    order_.resize(static_cast<std::size_t>(m * options_.walks_per_node));
    const core::Rng root(options_.seed);
    core::parallel_for(
        options_.walks_per_node,
        [&](std::int64_t r) {
          auto* slots = order_.data() + r * m;
          std::iota(slots, slots + m, std::int32_t{0});
          auto rng = root.split(~std::uint64_t{0}, static_cast<std::uint64_t>(r));
          core::shuffle(slots, slots + m, rng);
        },
        /*grain=*/1);
  }
}

std::int64_t WalkGenerator::start_of(std::int64_t w) const {
  const auto m = static_cast<std::int64_t>(starts_.size());
  const std::int64_t slot = order_.empty() ? w % m : order_[static_cast<std::size_t>(w)];
  return starts_[static_cast<std::size_t>(slot)];
}

std::int64_t WalkGenerator::generate(std::int64_t first, std::int64_t count, std::span<std::int32_t> out) const {
  LOOM_CHECK(first >= 0 && count >= 0 && first + count <= num_walks(), "walk range [{}, {}) is outside [0, {})", first,
             first + count, num_walks());
  const std::int64_t len = options_.length;
  LOOM_CHECK(static_cast<std::int64_t>(out.size()) >= count * len, "walk output holds {} entries, {} needed",
             out.size(), count * len);
  const auto m = static_cast<std::int64_t>(starts_.size());
  const auto n = static_cast<std::uint64_t>(csr_.num_rows());
  const core::Rng root(options_.seed);
  const auto bias = detail::Bias::make(options_.p, options_.q);
  const std::int64_t blocks = (count + kWalksPerBlock - 1) / kWalksPerBlock;
  std::vector<std::int64_t> block_steps(static_cast<std::size_t>(blocks), 0);

  csr_.visit([&](auto g) {
    using IdT = typename decltype(g.indices)::value_type;
    auto run = [&](auto second_order) {
      core::parallel_for_blocks(count, kWalksPerBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t b) {
        std::int64_t steps = 0;
        for (std::int64_t i = begin; i < end; ++i) {
          const std::int64_t w = first + i;
          const std::int64_t start = start_of(w);
          const auto round = static_cast<std::uint64_t>(w / m);
          auto rng = root.split(round * n + static_cast<std::uint64_t>(start));
          steps += detail::walk_one<std::remove_const_t<IdT>, decltype(second_order)::value>(g, start, len, bias, rng,
                                                                                             out.data() + i * len);
        }
        block_steps[static_cast<std::size_t>(b)] = steps;
      });
    };
    if (options_.second_order())
      run(std::true_type{});
    else
      run(std::false_type{});
  });
  return std::accumulate(block_steps.begin(), block_steps.end(), std::int64_t{0});
}

Walks generate_walks(const graph::Csr& csr, const WalkOptions& options, std::vector<std::int64_t> start_nodes) {
  const double starts = static_cast<double>(start_nodes.empty() ? csr.num_rows() : std::ssize(start_nodes));
  core::check_memory_for(
      starts * static_cast<double>(options.walks_per_node) * static_cast<double>(options.length) * sizeof(std::int32_t),
      options.length > options.walks_per_node ? "--length" : "--walks",
      fmt::format("{} walks of {} nodes from each of {} start nodes", options.walks_per_node, options.length, starts));
  const WalkGenerator generator(csr, options, std::move(start_nodes));
  Walks walks;
  walks.num_walks = generator.num_walks();
  walks.length = generator.length();
  walks.nodes.resize(static_cast<std::size_t>(walks.num_walks * walks.length));
  const core::Timer timer;
  walks.steps = generator.generate(0, walks.num_walks, walks.nodes);
  walks.seconds = timer.seconds();
  return walks;
}

std::vector<std::int64_t> compact_walks(Walks& walks) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(walks.num_walks) + 1, 0);
  std::size_t out = 0;
  for (std::int64_t w = 0; w < walks.num_walks; ++w) {
    const auto row = static_cast<std::size_t>(w * walks.length);
    for (std::int64_t i = 0; i < walks.length && walks.nodes[row + i] != kNoNode; ++i)
      walks.nodes[out++] = walks.nodes[row + i];
    offsets[static_cast<std::size_t>(w) + 1] = static_cast<std::int64_t>(out);
  }
  walks.nodes.resize(out);
  walks.nodes.shrink_to_fit();
  return offsets;
}

}  // namespace loom::sample::walk
