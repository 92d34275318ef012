// The counted work of one host count kept on disk, so that the next `loom plan` of the same graph,
// split, sampling and holdings prices it without splitting and counting again (counting is most of
// a plan's time: a partition and a cache ranking per host). An entry is one file per key in a
// folder (a store's own "plan-counts", or the user's cache folder for a --shape stand-in), named
// by the key's CRC-32 and holding the key itself, so that a different plan never reads it. Files
// are written atomically; an entry that cannot be written is skipped with a warning (a read-only
// store plans as before), and one that cannot be read is counted afresh.
#pragma once

#include <optional>
#include <string>

#include "loom/plan/kway_graph.hpp"
#include "loom/plan/step_counts.hpp"

namespace loom::plan {

struct CountedSplit {
  SplitSummary split;
  EpochCounts counts;
};

// The folder a plan keeps its counts in by default: STORE/plan-counts where the store can be
// written, else (and for a stand-in) $XDG_CACHE_HOME/loom/plan-counts ($HOME/.cache/... where
// unset; empty where neither is set).
std::string default_counts_dir(const std::string& store);

// The entry for `key` in `dir`, or nothing where there is none (or it is not whole, or was kept for
// another key); logs which.
std::optional<CountedSplit> read_counts(const std::string& dir, const std::string& key);
// Keeps `counted` under `key` in `dir` (created where missing); warns and returns where it cannot.
void keep_counts(const std::string& dir, const std::string& key, const CountedSplit& counted);

}  // namespace loom::plan
