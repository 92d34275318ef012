#include "loom/embed/synced_sgns.hpp"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/format/half.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"

namespace loom::embed {

void check(const SyncOptions& o) { LOOM_CHECK_ARG(o.rounds >= 1, "--rounds", "must be >= 1, got {}", o.rounds); }

namespace {

// Sentences [first, last) of `corpus` as a corpus of their own.
Corpus slice(const Corpus& corpus, std::int64_t first, std::int64_t last) {
  Corpus out;
  const auto begin = corpus.offsets[static_cast<std::size_t>(first)];
  const auto end = corpus.offsets[static_cast<std::size_t>(last)];
  out.tokens.assign(corpus.tokens.begin() + begin, corpus.tokens.begin() + end);
  out.offsets.reserve(static_cast<std::size_t>(last - first + 1));
  for (auto s = first + 1; s <= last; ++s) out.offsets.push_back(corpus.offsets[static_cast<std::size_t>(s)] - begin);
  return out;
}

// The first sentence at or after `fraction` of the tokens.
std::int64_t sentence_at(const Corpus& corpus, double fraction) {
  const auto token = static_cast<std::int64_t>(fraction * static_cast<double>(corpus.num_tokens()));
  return std::lower_bound(corpus.offsets.begin(), corpus.offsets.end() - 1, token) - corpus.offsets.begin();
}

// Exchanges the rows of `current` that differ from `snapshot` and sets every row any rank changed
// to snapshot + the combined update. Returns the rows this rank sent.
// Every rank's row updates, decoded to float32 (the wire carries float32 or float16).
std::vector<std::vector<float>> gather_updates(const std::vector<float>& updates, bool half,
                                               const comm::Communicator& comm) {
  if (!half) return comm.allgatherv(std::span<const float>(updates), comm::Channel::embeddings);
  std::vector<std::uint16_t> wire(updates.size());
  for (std::size_t i = 0; i < updates.size(); ++i) wire[i] = format::float_to_half(updates[i]).bits;
  const auto all = comm.allgatherv(std::span<const std::uint16_t>(wire), comm::Channel::embeddings);
  std::vector<std::vector<float>> out(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    out[k].resize(all[k].size());
    for (std::size_t i = 0; i < all[k].size(); ++i) out[k][i] = format::half_to_float(format::Half{all[k][i]});
  }
  return out;
}

std::int64_t synchronise(EmbeddingMatrix& current, const std::vector<float>& snapshot, const SyncOptions& sync,
                         const comm::Communicator& comm) {
  const Combiner combiner = sync.combiner;
  const std::int64_t rows = current.rows(), dim = current.dim(), stride = current.stride();
  std::vector<std::int64_t> changed;
  std::vector<float> updates;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* now = current.row(r);
    const float* before = snapshot.data() + r * stride;
    if (std::memcmp(now, before, sizeof(float) * dim) == 0) continue;
    changed.push_back(r);
    for (std::int64_t d = 0; d < dim; ++d) updates.push_back(now[d] - before[d]);
  }
  const auto all_ids = comm.allgatherv(std::span<const std::int64_t>(changed), comm::Channel::embeddings);
  const auto all_updates = gather_updates(updates, sync.half_updates, comm);
  // Per changed row, its updates in rank order.
  std::vector<std::int32_t> slot(static_cast<std::size_t>(rows), -1);
  std::vector<std::int64_t> touched;
  std::vector<std::vector<const float*>> parts;
  for (std::size_t k = 0; k < all_ids.size(); ++k)
    for (std::size_t i = 0; i < all_ids[k].size(); ++i) {
      const std::int64_t r = all_ids[k][i];
      if (slot[r] < 0) {
        slot[r] = static_cast<std::int32_t>(touched.size());
        touched.push_back(r);
        parts.emplace_back();
      }
      parts[slot[r]].push_back(all_updates[k].data() + i * dim);
    }
  core::parallel_for(
      static_cast<std::int64_t>(touched.size()),
      [&](std::int64_t t) {
        const std::int64_t r = touched[t];
        float* row = current.row(r);
        combine_updates(combiner, parts[t], dim, row);
        const float* before = snapshot.data() + r * stride;
        for (std::int64_t d = 0; d < dim; ++d) row[d] += before[d];
      },
      256);
  return static_cast<std::int64_t>(changed.size());
}

std::vector<float> copy_of(const EmbeddingMatrix& m) { return {m.data(), m.data() + m.rows() * m.stride()}; }

}  // namespace

SgnsStats train_sgns_synced(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                            const SyncOptions& sync, SgnsModel& model, SyncStats* sync_stats, const SgnsSteps& steps) {
  check(sync);
  if (sync.comm == nullptr || sync.comm->size() == 1) return train_sgns(corpus, counts, options, model, steps);
  check(options);
  const comm::Communicator& comm = *sync.comm;
  const int rank = comm.rank(), ranks = comm.size();
  const double share_begin = sync.local_corpus ? 0.0 : static_cast<double>(rank) / ranks;
  const double share_end = sync.local_corpus ? 1.0 : static_cast<double>(rank + 1) / ranks;
  const std::int64_t total_rounds = static_cast<std::int64_t>(options.epochs) * sync.rounds;
  const std::int64_t first_round = static_cast<std::int64_t>(steps.start.epochs) * sync.rounds + steps.start.steps;
  LOOM_CHECK(
      steps.start.steps >= 0 && steps.start.steps < sync.rounds && first_round >= 0 && first_round < total_rounds,
      "train: cannot start at {} of {} epochs of {} rounds", steps.start.name(), options.epochs, sync.rounds);
  SgnsStats stats;
  SyncStats local;
  core::Timer timer;
  for (std::int64_t index = first_round; index < total_rounds; ++index) {
    const int epoch = static_cast<int>(index / sync.rounds), round = static_cast<int>(index % sync.rounds);
    const double width = (share_end - share_begin) / sync.rounds;
    const std::int64_t first = sentence_at(corpus, share_begin + width * round);
    const std::int64_t last = round + 1 == sync.rounds ? sentence_at(corpus, share_end)
                                                       : sentence_at(corpus, share_begin + width * (round + 1));
    SgnsOptions o = options;
    o.epochs = 1;
    o.seed = core::mix_seed(core::mix_seed(options.seed, static_cast<std::uint64_t>(index)),
                            static_cast<std::uint64_t>(rank));
    o.schedule_begin = static_cast<double>(index) / static_cast<double>(total_rounds);
    o.schedule_end = static_cast<double>(index + 1) / static_cast<double>(total_rounds);
    o.progress = false;
    const std::vector<float> before_in = copy_of(model.input), before_out = copy_of(model.output);
    if (last > first) {
      const SgnsStats part = train_sgns(slice(corpus, first, last), counts, o, model);
      stats.words += part.words;
      stats.loss = part.loss;
    }
    core::Timer exchange;
    local.rows_sent += synchronise(model.input, before_in, sync, comm);
    local.rows_sent += synchronise(model.output, before_out, sync, comm);
    local.sync_seconds += exchange.seconds();
    ++local.rounds;
    const bool epoch_done = round + 1 == sync.rounds;
    if (epoch_done && rank == 0 && options.progress)
      spdlog::info("{}: epoch {}/{} done on {} ranks ({} rounds, {} combiner)", options.label, epoch + 1,
                   options.epochs, ranks, sync.rounds, combiner_name(sync.combiner));
    const format::CheckpointId reached =
        epoch_done ? format::CheckpointId{epoch + 1} : format::CheckpointId{epoch, round + 1};
    if (index + 1 < total_rounds && steps.at_boundary && steps.at_boundary(reached)) break;
  }
  std::array<double, 2> totals{static_cast<double>(stats.words), stats.loss};
  comm.allreduce_sum(totals, comm::Channel::control);
  stats.seconds = timer.seconds();
  stats.words = static_cast<std::int64_t>(totals[0]);
  stats.loss = totals[1] / ranks;
  stats.words_per_second = stats.seconds > 0 ? static_cast<double>(stats.words) / stats.seconds : 0.0;
  if (sync_stats != nullptr) *sync_stats = local;
  return stats;
}

}  // namespace loom::embed
