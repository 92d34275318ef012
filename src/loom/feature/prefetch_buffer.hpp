// PrefetchBuffer (Rudder, MassiveGNN): a buffer of remote features on one rank whose contents
// change during training. Its capacity is a fraction of the rank's halo (the remote neighbours of
// its own nodes), and it may hold any remote vertex: with multi-hop sampling, vertices two or
// three hops out are fetched too, and the buffer follows whatever is missed. Per minibatch,
// lookup() serves the buffered rows among the remote ids and counts a miss for every other one. Each buffered row's
// score decays by (1 - decay) per minibatch and is restored to 1 on a hit, so score = (1 - decay)^(minibatches since
// last hit); rows scoring under (1 - decay)^period (idle for more than `period` minibatches) are eviction candidates.
// When a controller asks for an eviction, the next minibatch evicts the candidates (and fills empty slots) with the
// remote vertices missed most often, and those rows travel in the same request as the minibatch's own misses
// (FeatureSource does the fetch, then install()). Lookahead admission (`lookahead` K > 0): a pipeline that samples K
// minibatches ahead of their fetch tells the buffer their ids (see_ahead()); after each minibatch's fetch, admit()
// keeps the fetched rows those minibatches use, soonest first, in place of rows out of sight (used least often first)
// or used later. Rows already fetched move nothing more; decisions need no controller. With sparse rows (a sparse
// store's) each slot holds its row's entries, not dim floats: lookup_slots() names the slots that serve a batch and
// slot_entries() their entries, and install() / admit() take the fetched rows' entries. Not thread-safe: one thread
// (the pipeline's producer) uses it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/feature/remote_fetcher.hpp"

namespace loom::feature {

// What the buffer holds before the first minibatch: nothing, or the rows a cache policy ranks hottest.
enum class PrefetchStart { kEmpty, kDegree, kRandom, kVip };
inline constexpr core::EnumNames<PrefetchStart, 4> kPrefetchStartNames{{{"empty", PrefetchStart::kEmpty},
                                                                        {"degree", PrefetchStart::kDegree},
                                                                        {"random", PrefetchStart::kRandom},
                                                                        {"vip", PrefetchStart::kVip}}};

struct PrefetchOptions {
  double fraction = 0.25;                       // capacity = fraction * halo size, in (0, 1]
  double decay = 0.05;                          // a: scores decay by (1 - a) per minibatch
  int period = 32;                              // rows idle this many minibatches are eviction candidates
  PrefetchStart initial = PrefetchStart::kVip;  // initial fill
  int lookahead = 0;                            // minibatches sampled ahead whose fetched rows are admitted (0 = off)
};

// Throws Error naming --prefetch, --prefetch-decay, --prefetch-period or --prefetch-lookahead.
void check(const PrefetchOptions& options);

class PrefetchBuffer {
 public:
  // The rank owns the ids `own` of [0, num_nodes); the buffer holds up to `capacity` other rows,
  // as their entries where `sparse_rows`.
  PrefetchBuffer(partition::IdRange own, std::int64_t num_nodes, std::int64_t capacity, std::int64_t dim,
                 const PrefetchOptions& options, bool sparse_rows = false);
  // Capacity for a rank whose halo has `halo_size` vertices: floor(fraction * halo_size).
  static std::int64_t capacity_for(std::int64_t halo_size, const PrefetchOptions& options);

  std::int64_t capacity() const { return static_cast<std::int64_t>(slot_vertex_.size()); }
  std::int64_t occupancy() const { return occupied_; }
  bool sparse_rows() const { return sparse_; }
  // Bytes the buffered rows take (dense: capacity x dim floats; sparse: the entries held).
  std::int64_t row_bytes() const;
  const PrefetchOptions& options() const { return options_; }

  // Collective: fills the buffer with the `capacity` remote vertices scoring highest (scores
  // per global vertex, e.g. degree or VIP, > 0 to be taken; empty = leave the buffer empty).
  FetchStats fill(const RemoteFetcher& fetcher, std::span<const double> scores);

  // For ids[p], p in `positions` (remote ids): copies buffered rows to out (dim floats per row)
  // and returns the positions it could not serve. Counts hits and misses.
  std::vector<std::int64_t> lookup(std::span<const std::int64_t> ids, std::span<const std::int64_t> positions,
                                   float* out);
  // lookup() without the copy: the positions served and their slots (whose rows stay in place
  // until the next admit()) into `hit_positions` / `hit_slots`; returns the positions missed.
  std::vector<std::int64_t> lookup_slots(std::span<const std::int64_t> ids, std::span<const std::int64_t> positions,
                                         std::vector<std::int64_t>& hit_positions,
                                         std::vector<std::int64_t>& hit_slots);
  // A sparse buffer's row in `slot` (float32 values).
  RowTable::SparseEntries slot_entries(std::int64_t slot) const;

  // Asks for an eviction at the next replacements() call.
  void request_eviction() { eviction_requested_ = true; }
  // When an eviction was requested: evicts the candidates and returns the ids to fetch into
  // the freed (and empty) slots, most-missed remote vertices first; otherwise nothing.
  std::vector<std::int64_t> replacements();
  // Stores the fetched rows of the ids replacements() returned (rows[i] = ids[i]).
  void install(std::span<const std::int64_t> ids, const float* rows);
  // Sparse: the same with ids[i]'s row entries_of(i).
  using EntriesOf = std::function<RowTable::SparseEntries(std::int64_t)>;
  void install(std::span<const std::int64_t> ids, const EntriesOf& entries_of);
  // Lookahead: ids[j] are the input ids of the (j+1)-th minibatch after the current one.
  void see_ahead(std::span<const std::span<const std::int64_t>> ids);
  // Lookahead: after the current minibatch's fetch, where ids[p] for p in `fetched` was fetched
  // into out (dim floats per row), keeps those the minibatches in sight use (see the top).
  void admit(std::span<const std::int64_t> ids, std::span<const std::int64_t> fetched, const float* out);
  // Sparse: the same with ids[p]'s fetched row entries_of(p).
  void admit(std::span<const std::int64_t> ids, std::span<const std::int64_t> fetched, const EntriesOf& entries_of);
  // Ends a minibatch: advances the decay clock.
  void end_step() { ++clock_; }

  // Rows whose score is under the eviction threshold.
  std::int64_t candidates() const;
  // Score of a buffered row: (1 - decay)^(minibatches since its last hit).
  double mean_score() const;

  std::int64_t hits() const { return hits_; }
  std::int64_t misses() const { return misses_total_; }
  std::int64_t evictions() const { return evictions_; }
  std::int64_t rows_replaced() const { return rows_replaced_; }
  std::int64_t rows_admitted() const { return rows_admitted_; }

 private:
  // Dense index of a remote id: the ids before `own`, then those after it.
  std::int64_t remote_index(std::int64_t id) const { return id < own_.begin ? id : id - own_.size(); }
  std::int64_t remote_id(std::int64_t index) const { return index < own_.begin ? index : index + own_.size(); }
  // Stores remote vertex r's row in `slot` (occupancy is the caller's to count).
  void place(std::int64_t slot, std::int64_t r, const float* row);
  void place(std::int64_t slot, std::int64_t r, const RowTable::SparseEntries& row);
  // Marks `slot` as remote vertex r's, just hit.
  void assign(std::int64_t slot, std::int64_t r);
  // Lookahead: the fetched positions to keep and the slots they take, evictions done (see admit()).
  std::vector<std::pair<std::int64_t, std::int64_t>> admissions(std::span<const std::int64_t> ids,
                                                                std::span<const std::int64_t> fetched);
  partition::IdRange own_;
  std::int64_t dim_;
  PrefetchOptions options_;
  std::vector<std::int32_t> vertex_slot_;  // per remote vertex: its slot, or -1
  std::vector<std::int32_t> misses_;       // per remote vertex: misses while not buffered
  std::vector<std::int32_t> uses_;         // per remote vertex: lookups (lookahead only)
  std::vector<std::int64_t> sight_;        // per remote vertex: clock of its next use in sight (lookahead)
  std::vector<std::int64_t> slot_vertex_;  // per slot: remote index, or -1 (empty)
  std::vector<std::int64_t> last_hit_;     // per slot: clock of the last hit (or install)
  bool sparse_;
  std::vector<float> rows_;                              // capacity x dim (dense rows)
  std::vector<std::vector<std::int32_t>> slot_columns_;  // per slot (sparse rows): its row's columns
  std::vector<std::vector<float>> slot_values_;          // and their values
  std::vector<std::int64_t> pending_slots_;              // slots reserved for the ids replacements() returned
  std::int64_t occupied_ = 0, clock_ = 0;
  std::int64_t hits_ = 0, misses_total_ = 0, evictions_ = 0, rows_replaced_ = 0, rows_admitted_ = 0;
  bool eviction_requested_ = false;
};

}  // namespace loom::feature
