#include "node_sets.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::python {

namespace {

const std::vector<std::int64_t>& split_of(const loader::TrainingData& data, const std::string& name,
                                          const std::string& argument) {
  LOOM_CHECK_ARG(name == "train" || name == "valid" || name == "test", argument,
                 "unknown split '{}' (want train, valid or test, a boolean mask or a tensor of node ids)", name);
  const auto& ids = name == "train" ? data.train_ids : name == "valid" ? data.valid_ids : data.test_ids;
  return ids;
}

// This rank's rows by original id: global id of each original id it owns, or -1.
class OwnedIds {
 public:
  explicit OwnedIds(const loader::TrainingData& data) : offset_(data.offset) {
    const auto& ids = data.original_ids;
    for (std::size_t i = 0; i < ids.size() && identity_; ++i)
      identity_ = ids[i] == data.offset + static_cast<std::int64_t>(i);
    if (identity_) {
      count_ = static_cast<std::int64_t>(ids.size());
      return;
    }
    by_id_.resize(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) by_id_[i] = {ids[i], data.offset + static_cast<std::int64_t>(i)};
    std::sort(by_id_.begin(), by_id_.end());
  }
  std::int64_t global(std::int64_t original) const {
    if (identity_) return original >= offset_ && original < offset_ + count_ ? original : -1;
    const auto it = std::lower_bound(by_id_.begin(), by_id_.end(), std::pair{original, std::int64_t{-1}});
    return it != by_id_.end() && it->first == original ? it->second : -1;
  }

 private:
  std::int64_t offset_;
  bool identity_ = true;
  std::int64_t count_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> by_id_;  // (original, global), sorted
};

// The given ids (original ids, or positions of a mask), as int64.
std::vector<std::int64_t> ids_of_tensor(const torch::Tensor& given, const loader::TrainingData& data,
                                        const comm::Communicator& world, const std::string& argument) {
  torch::Tensor t = given.detach().to(torch::kCPU);
  LOOM_CHECK_ARG(t.dim() == 1, argument, "want a 1-D tensor (node ids or a boolean mask), got shape {}",
                 fmt::format("{}", fmt::join(t.sizes(), "x")));
  if (t.scalar_type() == torch::kBool) {
    LOOM_CHECK_ARG(data.original_names.empty(), argument,
                   "this graph names its nodes: give their names (a list of str), not a mask");
    LOOM_CHECK_ARG(t.size(0) == data.num_nodes(), argument, "a mask of {} values for a graph of {} nodes", t.size(0),
                   data.num_nodes());
    std::int64_t highest =
        data.original_ids.empty() ? -1 : *std::max_element(data.original_ids.begin(), data.original_ids.end());
    highest = world.allreduce_max(highest, comm::Channel::control);
    LOOM_CHECK_ARG(highest < data.num_nodes(), argument,
                   "this graph's original node ids run past its {} nodes (up to {}): a mask cannot name them; "
                   "give the ids (an int tensor)",
                   data.num_nodes(), highest);
    t = t.nonzero().flatten();
  }
  LOOM_CHECK_ARG(!t.is_floating_point() && !t.is_complex(), argument,
                 "want node ids (an integer tensor) or a boolean mask, got a tensor of {}",
                 std::string(c10::toString(t.scalar_type())));
  t = t.to(torch::kInt64).contiguous();
  return {t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel()};
}

// Refuses (on every rank) given nodes that no rank owns: `what` names them ("ids"), `shown(i)`
// prints the i-th.
void check_all_found(const std::vector<char>& found, const comm::Communicator& world, const std::string& argument,
                     const char* what, const std::function<std::string(std::size_t)>& shown) {
  const auto mine = std::count(found.begin(), found.end(), char{1});
  const std::int64_t total = world.allreduce_sum(static_cast<std::int64_t>(mine), comm::Channel::control);
  const auto n = static_cast<std::int64_t>(found.size());
  if (total == n) return;
  std::vector<std::int64_t> anywhere(found.begin(), found.end());
  world.allreduce_max(anywhere, comm::Channel::control);
  const auto first = std::find(anywhere.begin(), anywhere.end(), 0) - anywhere.begin();
  throw Error::in_argument(argument, fmt::format("{} of the {} {} are no node of the graph (the first: {})", n - total,
                                                 n, what, shown(static_cast<std::size_t>(first))));
}

std::vector<std::int64_t> owned_of_ids(std::span<const std::int64_t> given, const loader::TrainingData& data,
                                       const comm::Communicator& world, const std::string& argument) {
  const OwnedIds owned(data);
  std::vector<std::int64_t> mine;
  std::vector<char> found(given.size(), 0);
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::int64_t g = owned.global(given[i]);
    if (g < 0) continue;
    found[i] = 1;
    mine.push_back(g);
  }
  check_all_found(found, world, argument, "ids", [&](std::size_t i) { return std::to_string(given[i]); });
  return mine;
}

std::vector<std::int64_t> owned_of_names(const std::vector<std::string>& given, const loader::TrainingData& data,
                                         const comm::Communicator& world, const std::string& argument) {
  LOOM_CHECK_ARG(!data.original_names.empty(), argument,
                 "this graph's nodes have integer ids, not names: give an int tensor or a boolean mask");
  std::unordered_map<std::string_view, std::int64_t> by_name;
  for (std::size_t i = 0; i < data.original_names.size(); ++i)
    by_name.emplace(data.original_names[i], data.offset + static_cast<std::int64_t>(i));
  std::vector<std::int64_t> mine;
  std::vector<char> found(given.size(), 0);
  for (std::size_t i = 0; i < given.size(); ++i) {
    const auto it = by_name.find(given[i]);
    if (it == by_name.end()) continue;
    found[i] = 1;
    mine.push_back(it->second);
  }
  check_all_found(found, world, argument, "names", [&](std::size_t i) { return "'" + given[i] + "'"; });
  return mine;
}

}  // namespace

std::vector<std::int64_t> resolve_nodes(const NodeSet& nodes, const loader::TrainingData& data,
                                        const comm::Communicator& world, sample::SeedOrder order,
                                        const std::string& argument) {
  std::vector<std::int64_t> mine;
  if (const auto* name = std::get_if<std::string>(&nodes)) {
    mine = split_of(data, *name, argument);
  } else if (const auto* names = std::get_if<std::vector<std::string>>(&nodes)) {
    mine = owned_of_names(*names, data, world, argument);
  } else {
    mine = owned_of_ids(ids_of_tensor(std::get<torch::Tensor>(nodes), data, world, argument), data, world, argument);
  }
  if (order == sample::SeedOrder::kShuffled) std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace loom::python
