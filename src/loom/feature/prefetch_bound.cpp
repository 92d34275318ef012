#include "loom/feature/prefetch_bound.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/feature/analysis_input.hpp"
#include "loom/feature/vip.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::feature {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

void check(const PrefetchBoundOptions& o) {
  LOOM_CHECK_ARG(!o.fractions.empty(), "--prefetch", "give at least one fraction");
  for (const double f : o.fractions) LOOM_CHECK_ARG(f > 0 && f <= 1, "--prefetch", "must be in (0, 1], got {}", f);
  LOOM_CHECK_ARG(o.epochs > 0, "--epochs", "must be positive, got {}", o.epochs);
  LOOM_CHECK_ARG(o.batch_size > 0, "--batch-size", "must be positive, got {}", o.batch_size);
  LOOM_CHECK_ARG(o.lookahead >= 0, "--lookahead", "must be >= 0, got {}", o.lookahead);
}

// Fetches left by the `capacity` remote rows used most often.
std::int64_t best_static_fetches(const absl::flat_hash_map<std::int64_t, std::int64_t>& uses, std::int64_t total,
                                 std::int64_t capacity) {
  std::vector<std::int64_t> counts;
  counts.reserve(uses.size());
  for (const auto& [id, n] : uses) counts.push_back(n);
  const auto keep = std::min<std::size_t>(counts.size(), static_cast<std::size_t>(capacity));
  std::nth_element(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(keep), counts.end(), std::greater<>());
  std::int64_t saved = 0;
  for (std::size_t i = 0; i < keep; ++i) saved += counts[i];
  return total - saved;
}

// A trace prepared once for Belady's MIN at any number of capacities: each access's next use and
// every row's first use (by id, and sorted by time).
class BeladyReplay {
 public:
  explicit BeladyReplay(std::span<const std::vector<std::int64_t>> accesses)
      : accesses_(accesses), next_use_(accesses.size()) {
    absl::flat_hash_map<std::int64_t, std::int64_t>& upcoming = first_use_;  // ends as each row's first use
    for (std::size_t t = accesses.size(); t-- > 0;) {
      next_use_[t].resize(accesses[t].size());
      for (std::size_t i = 0; i < accesses[t].size(); ++i) {
        auto [it, fresh] = upcoming.try_emplace(accesses[t][i], static_cast<std::int64_t>(t));
        next_use_[t][i] = fresh ? kNever : it->second;
        it->second = static_cast<std::int64_t>(t);
      }
    }
    for (const auto& [id, t] : upcoming) first_uses_.emplace_back(t, id);
    std::sort(first_uses_.begin(), first_uses_.end());
  }

  std::int64_t fetches(std::int64_t capacity) const {
    std::set<std::pair<std::int64_t, std::int64_t>> by_next_use;  // (next use, id) of held rows
    absl::flat_hash_map<std::int64_t, std::int64_t> held;         // id -> its next use
    // The initial fill is free (as the trainer's buffer fills before the epochs): the rows used first.
    const auto fill =
        std::min<std::size_t>(first_uses_.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, capacity)));
    for (std::size_t i = 0; i < fill; ++i) {
      by_next_use.insert(first_uses_[i]);
      held.emplace(first_uses_[i].second, first_uses_[i].first);
    }
    std::int64_t fetched = 0;
    for (std::size_t t = 0; t < accesses_.size(); ++t) {
      for (std::size_t i = 0; i < accesses_[t].size(); ++i) {
        const std::int64_t id = accesses_[t][i];
        if (const auto it = held.find(id); it == held.end()) {
          ++fetched;
        } else {
          by_next_use.erase({it->second, id});
          held.erase(it);
        }
        if (next_use_[t][i] != kNever && capacity > 0) {
          by_next_use.emplace(next_use_[t][i], id);
          held.emplace(id, next_use_[t][i]);
        }
      }
      while (static_cast<std::int64_t>(by_next_use.size()) > capacity) {  // drop the latest next uses
        const auto last = std::prev(by_next_use.end());
        held.erase(last->second);
        by_next_use.erase(last);
      }
    }
    return fetched;
  }

  // Rows fetched by an online policy that sees `window` minibatches ahead (what a pipeline that
  // samples ahead of its fetches knows): every fetched row may stay (free insertion); the buffer
  // keeps first the rows the next `window` minibatches use, soonest first, then the rows used
  // most often so far. `initial` is the free initial fill, hottest first.
  std::int64_t lookahead_fetches(std::int64_t capacity, std::int64_t window,
                                 std::span<const std::int64_t> initial) const {
    using Key = std::tuple<int, std::int64_t, std::int64_t>;  // (in window, priority, id): evict the smallest
    std::set<Key> by_key;
    absl::flat_hash_map<std::int64_t, std::pair<std::int64_t, Key>> held;  // id -> (next use, key)
    absl::flat_hash_map<std::int64_t, std::int64_t> uses_so_far;
    const auto key_of = [&](std::int64_t id, std::int64_t next, std::int64_t now) {
      if (next <= now + window) return Key{1, -next, id};
      const auto it = uses_so_far.find(id);
      return Key{0, it == uses_so_far.end() ? 0 : it->second, id};
    };
    const auto hold = [&](std::int64_t id, std::int64_t next, std::int64_t now) {
      const Key key = key_of(id, next, now);
      by_key.insert(key);
      held[id] = {next, key};
    };
    if (capacity <= 0) return total_accesses();
    for (const std::int64_t id :
         initial.first(std::min<std::size_t>(initial.size(), static_cast<std::size_t>(capacity)))) {
      const auto it = first_use_.find(id);
      hold(id, it == first_use_.end() ? kNever : it->second, -1);
    }
    std::int64_t fetched = 0;
    const auto steps = static_cast<std::int64_t>(accesses_.size());
    for (std::int64_t t = 0; t < steps; ++t) {
      const auto& batch = accesses_[static_cast<std::size_t>(t)];
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const std::int64_t id = batch[i];
        if (const auto it = held.find(id); it == held.end()) {
          ++fetched;
        } else {
          by_key.erase(it->second.second);
          held.erase(it);
        }
        ++uses_so_far[id];
        hold(id, next_use_[static_cast<std::size_t>(t)][i], t);
      }
      if (t + window < steps)  // rows the minibatch entering the window uses move up
        for (const std::int64_t id : accesses_[static_cast<std::size_t>(t + window)])
          if (const auto it = held.find(id); it != held.end() && it->second.first == t + window) {
            by_key.erase(it->second.second);
            held.erase(it);
            hold(id, t + window, t);
          }
      while (static_cast<std::int64_t>(by_key.size()) > capacity) {
        held.erase(std::get<2>(*by_key.begin()));
        by_key.erase(by_key.begin());
      }
    }
    return fetched;
  }

 private:
  std::int64_t total_accesses() const {
    std::int64_t n = 0;
    for (const auto& a : accesses_) n += static_cast<std::int64_t>(a.size());
    return n;
  }
  std::span<const std::vector<std::int64_t>> accesses_;
  std::vector<std::vector<std::int64_t>> next_use_;                // [t][i]: next minibatch using accesses[t][i]
  absl::flat_hash_map<std::int64_t, std::int64_t> first_use_;      // id -> its first use
  std::vector<std::pair<std::int64_t, std::int64_t>> first_uses_;  // (first use, id), sorted
};

// Part k's remote vertices that VIP ranks above 0, hottest first (the trainer's default fill).
std::vector<std::int64_t> hottest_remote(const AnalysisInput& in, int k, std::int64_t batch_size,
                                         std::span<const std::int32_t> fanouts) {
  const std::vector<double> score = vip_log_miss(in.topology.csr(), in.train_ids[k], batch_size, fanouts);
  const partition::IdRange mine = in.book.range(k);
  std::vector<std::int64_t> ids;
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(score.size()); ++v)
    if (!mine.contains(v) && score[v] > 0) ids.push_back(v);
  std::sort(ids.begin(), ids.end(),
            [&](std::int64_t a, std::int64_t b) { return score[a] > score[b] || (score[a] == score[b] && a < b); });
  return ids;
}

}  // namespace

std::int64_t belady_fetches(std::span<const std::vector<std::int64_t>> accesses, std::int64_t capacity) {
  return BeladyReplay(accesses).fetches(capacity);
}

std::int64_t lookahead_fetches(std::span<const std::vector<std::int64_t>> accesses, std::int64_t capacity,
                               std::int64_t window, std::span<const std::int64_t> initial) {
  return BeladyReplay(accesses).lookahead_fetches(capacity, window, initial);
}

PrefetchBound analyze_prefetch_bound(const PrefetchBoundOptions& options) {
  check(options);
  const AnalysisInput in = open_analysis_input(options.store);
  const sample::Fanouts& fanouts = options.fanouts;
  const sample::NeighborSampler sampler(in.topology.csr(), fanouts);
  const int parts = in.book.num_parts();
  const std::int64_t steps = in.steps_per_epoch(options.batch_size);

  PrefetchBound r;
  r.store = options.store;
  r.parts = parts;
  r.fractions = options.fractions;
  r.capacity.assign(options.fractions.size(), 0);
  r.best_static.assign(options.fractions.size(), 0);
  r.belady.assign(options.fractions.size(), 0);
  r.lookahead = options.lookahead;
  r.online.assign(options.fractions.size(), 0);
  const double epochs = options.epochs;
  for (int k = 0; k < parts; ++k) {
    const partition::IdRange mine = in.book.range(k);
    std::vector<std::vector<std::int64_t>> accesses;
    absl::flat_hash_map<std::int64_t, std::int64_t> uses;
    std::int64_t total = 0;
    for (int epoch = 0; epoch < options.epochs; ++epoch)
      for (const auto& step : sample::plan_epoch(in.train_ids[k], steps, options.batch_size, options.seed, epoch, k)) {
        auto& remote = accesses.emplace_back();
        if (step.seeds.empty()) continue;
        for (const std::int64_t v : sampler.sample(step.seeds, step.sample_seed).input_nodes)
          if (!mine.contains(v)) {
            remote.push_back(v);
            ++uses[v];
          }
        total += static_cast<std::int64_t>(remote.size());
      }
    const BeladyReplay replay(accesses);
    const std::vector<std::int64_t> hottest = hottest_remote(in, k, options.batch_size, fanouts);
    r.halo += in.halo_sizes[k];
    r.no_buffer += static_cast<double>(total) / epochs;
    for (std::size_t f = 0; f < options.fractions.size(); ++f) {
      const auto capacity =
          static_cast<std::int64_t>(std::floor(options.fractions[f] * static_cast<double>(in.halo_sizes[k])));
      r.capacity[f] += capacity;
      r.best_static[f] += static_cast<double>(best_static_fetches(uses, total, capacity)) / epochs;
      r.belady[f] += static_cast<double>(replay.fetches(capacity)) / epochs;
      r.online[f] += static_cast<double>(replay.lookahead_fetches(capacity, options.lookahead, hottest)) / epochs;
    }
    spdlog::info("prefetch bound: part {}/{} done", k + 1, parts);
  }
  return r;
}

nlohmann::json PrefetchBound::to_json() const {
  nlohmann::json j = {{"store", store},
                      {"parts", parts},
                      {"fractions", fractions},
                      {"buffer_rows_all_ranks", capacity},
                      {"halo_all_ranks", halo},
                      {"remote_rows_per_epoch_no_buffer", no_buffer},
                      {"remote_rows_per_epoch_best_static", best_static},
                      {"remote_rows_per_epoch_belady", belady},
                      {"lookahead", lookahead},
                      {"remote_rows_per_epoch_lookahead", online}};
  return j;
}

std::string PrefetchBound::table() const {
  std::string out =
      fmt::format("{}: {} parts, halo {} vertices (all ranks); remote rows per epoch without a buffer {:.4g}\n", store,
                  parts, halo, no_buffer);
  const std::string online_name = fmt::format("lookahead {}", lookahead);
  out += fmt::format("{:>9} {:>12} {:>14} {:>8} {:>14} {:>8} {:>14} {:>8}\n", "fraction", "buffer rows", "best static",
                     "saved", "Belady (bound)", "saved", online_name, "saved");
  for (std::size_t f = 0; f < fractions.size(); ++f) {
    const auto saved = [&](double rows) {
      return no_buffer > 0 ? fmt::format("{:.1f}%", 100 * (1 - rows / no_buffer)) : "-";
    };
    out += fmt::format("{:>9g} {:>12} {:>14.4g} {:>8} {:>14.4g} {:>8} {:>14.4g} {:>8}\n", fractions[f], capacity[f],
                       best_static[f], saved(best_static[f]), belady[f], saved(belady[f]), online[f], saved(online[f]));
  }
  return out;
}

}  // namespace loom::feature
