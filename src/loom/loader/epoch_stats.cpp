#include "loom/loader/epoch_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "loom/core/error.hpp"

namespace loom::loader {
namespace {

// Every field of EpochTotals, in one order, for pack_totals() and unpack_totals().
template <class Totals, class Visit>
void visit_totals(Totals& t, Visit&& visit) {
  visit(t.loss_sum);
  for (auto* value : scores::ScoreCounts::fields(t.train)) visit(*value);
  for (auto* phase :
       {&t.phases.sample, &t.phases.fetch, &t.phases.copy, &t.phases.wait, &t.phases.compute, &t.phases.allreduce})
    visit(*phase);
  for (auto* rows : {&t.fetched.local_rows, &t.fetched.device_rows, &t.fetched.cached_rows, &t.fetched.prefetch_hits,
                     &t.fetched.remote_rows, &t.fetched.prefetch_rows, &t.fetched.bytes, &t.sampled_edges})
    visit(*rows);
  visit(t.fetched.seconds);
  visit(t.earlier_seconds);
}

}  // namespace

void count_batch(const loader::PreparedBatch& batch, double wait, EpochTotals& t) {
  t.phases.wait += wait;
  t.phases.sample += batch.sample_seconds;
  t.phases.fetch += batch.fetch.seconds;
  t.phases.copy += batch.copy_seconds;
  t.fetched += batch.fetch;
  t.sampled_edges += batch.sampled.num_sampled_edges;
}

std::vector<double> pack_totals(const EpochTotals& totals) {
  std::vector<double> values;
  EpochTotals copy = totals;
  visit_totals(copy, [&](auto& field) { values.push_back(static_cast<double>(field)); });
  return values;
}

EpochTotals unpack_totals(std::span<const double> values, const std::string& where) {
  EpochTotals totals;
  std::size_t next = 0;
  bool whole = true;  // integer fields hold whole numbers an int64 can hold
  visit_totals(totals, [&](auto& field) {
    using Field = std::remove_reference_t<decltype(field)>;
    if (next < values.size()) {
      const double value = values[next];
      if constexpr (std::is_integral_v<Field>) {
        whole = whole && std::isfinite(value) && std::abs(value) <= 9.0e15 && value == std::floor(value);
        field = whole ? static_cast<Field>(value) : 0;
      } else {
        field = value;
      }
    }
    ++next;
  });
  if (!whole) throw Error::in_file(where, 0, "epoch totals hold a count that is not a whole number");
  if (next != values.size())
    throw Error::in_file(where, 0, fmt::format("epoch totals hold {} numbers, {} expected", values.size(), next));
  return totals;
}

EpochWatch watch_epoch(const comm::Communicator& world, const loader::PrefetchControl* control,
                       const feature::PrefetchBuffer* buffer) {
  EpochWatch w;
  w.comm = world.stats();
  if (control) w.decisions = control->counters();
  if (buffer) w.rows_admitted = buffer->rows_admitted();
  return w;
}

EpochSummary summarize_epoch(const EpochFacts& facts, const EpochTotals& t, const EpochWatch& since,
                             const comm::Communicator& world, const loader::PrefetchControl* control,
                             const feature::PrefetchBuffer* buffer) {
  EpochSummary s;
  s.facts = facts;
  s.phases = t.phases;
  double loss_sum = t.loss_sum, all_steps = static_cast<double>(facts.steps);
  world.sum_fields(comm::Channel::control, loss_sum, all_steps);
  s.loss = loss_sum / std::max(1.0, all_steps);
  if (facts.scoring) s.train_score = scores::score(scores::sum_over_ranks(t.train, world), *facts.scoring);
  const double producer = t.phases.sample + t.phases.fetch + t.phases.copy;
  s.pipeline_hidden_fraction =
      facts.pipelined && producer > 0 ? std::clamp(1.0 - t.phases.wait / producer, 0.0, 1.0) : 0.0;

  const feature::FetchStats& f = t.fetched;
  s.rows_local = f.local_rows;
  s.rows_device = f.device_rows;
  s.rows_remote = f.remote_rows;
  s.rows_cached = f.cached_rows;
  s.feature_bytes = f.bytes;
  s.sampled_edges = t.sampled_edges;
  world.sum_fields(comm::Channel::control, s.rows_local, s.rows_device, s.rows_remote, s.rows_cached, s.feature_bytes,
                   s.sampled_edges);
  if (control) {
    const loader::PrefetchCounters& now = control->counters();
    PrefetchEpoch p{.hits = f.prefetch_hits,
                    .lookups = f.prefetch_hits + f.remote_rows - f.prefetch_rows,
                    .rows_in = f.prefetch_rows,
                    .decisions = now.decisions - since.decisions.decisions,
                    .evictions = now.evictions - since.decisions.evictions,
                    .fallbacks = now.fallbacks - since.decisions.fallbacks,
                    .rows_admitted = buffer->rows_admitted() - since.rows_admitted};
    world.sum_fields(comm::Channel::control, p.hits, p.lookups, p.rows_in, p.decisions, p.evictions, p.fallbacks,
                     p.rows_admitted);
    s.prefetch = p;
  }
  s.comm = world.global_stats(world.stats() - since.comm);
  return s;
}

nlohmann::json epoch_record(const EpochSummary& s) {
  nlohmann::json r;
  r["epoch"] = s.facts.epoch;
  r["epoch_seconds"] = s.facts.seconds;
  r["steps"] = s.facts.steps;
  if (s.facts.changed_conditions) r["changed_conditions"] = true;
  r["lr"] = s.facts.lr;
  r["loss"] = s.loss;
  if (s.facts.scoring) r["train_" + scores::score_name(*s.facts.scoring)] = s.train_score;
  r["phases_seconds"] = {{"sample", s.phases.sample}, {"fetch", s.phases.fetch},     {"copy", s.phases.copy},
                         {"wait", s.phases.wait},     {"compute", s.phases.compute}, {"allreduce", s.phases.allreduce}};
  r["pipeline_hidden_fraction"] = s.pipeline_hidden_fraction;
  r["rows_local"] = s.rows_local;
  r["rows_device"] = s.rows_device;
  r["rows_remote"] = s.rows_remote;
  r["feature_bytes"] = s.feature_bytes;
  r["sampled_edges"] = s.sampled_edges;
  r["rows_cached"] = s.rows_cached;
  if (s.prefetch) {
    const PrefetchEpoch& p = *s.prefetch;
    r["prefetch"] = {{"hits", p.hits},           {"lookups", p.lookups},
                     {"hit_rate", p.hit_rate()}, {"rows_in", p.rows_in},
                     {"decisions", p.decisions}, {"evictions", p.evictions},
                     {"fallbacks", p.fallbacks}, {"rows_admitted", p.rows_admitted}};
  }
  r["comm"] = s.comm.to_json();
  return r;
}

}  // namespace loom::loader
