#include "loom/train/memory_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"

namespace loom::train {

namespace {

std::string human(std::int64_t bytes) { return core::human_bytes(static_cast<double>(bytes)); }

}  // namespace

std::int64_t MemoryPlan::total() const {
  std::int64_t sum = 0;
  for (const auto& p : parts) sum += p.bytes;
  return sum;
}

std::int64_t MemoryPlan::resident() const {
  std::int64_t sum = 0;
  for (const auto& p : parts)
    if (p.residence == Residence::kResident) sum += p.bytes;
  return sum;
}

nlohmann::json MemoryPlan::record() const {
  nlohmann::json by_name = nlohmann::json::object(), mapped = nlohmann::json::array();
  for (const auto& p : parts) {
    by_name[p.name] = p.bytes;
    if (p.residence != Residence::kResident) mapped.push_back(p.name);
  }
  return {{"event", "memory"},
          {"estimate_bytes", total()},
          {"resident_bytes", resident()},
          {"mapped_bytes", total() - resident()},
          {"parts", by_name},
          {"mapped_parts", mapped}};
}

namespace {

// "a (x), b (y)" of the non-empty parts, largest first, and the options that lower them.
struct PartList {
  std::string listed, advice, first_option;
};
PartList list_parts(std::vector<MemoryPart> parts) {
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  PartList out;
  for (const auto& p : parts) {
    if (p.bytes == 0) continue;
    out.listed += fmt::format("{}{} {}", out.listed.empty() ? "" : ", ", p.name, human(p.bytes));
    if (p.lower.empty()) continue;
    out.advice += fmt::format("{}{} ({})", out.advice.empty() ? "" : "; ", p.lower, p.name);
    if (out.first_option.empty()) out.first_option = p.lower.substr(0, p.lower.find(','));
  }
  return out;
}

}  // namespace

void check_device_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, std::int64_t free_bytes,
                              int ranks_on_device, const std::string& device) {
  std::int64_t room = limit_bytes;
  std::string where = fmt::format("the limit of {} per rank", human(limit_bytes));
  if (limit_bytes <= 0) {
    if (free_bytes < 0) return;
    room = free_bytes / std::max(1, ranks_on_device);
    where = fmt::format("{}'s free {}{}", device, human(free_bytes),
                        ranks_on_device > 1 ? fmt::format(" shared by {} ranks", ranks_on_device) : "");
  }
  if (plan.total() <= room) return;
  const PartList parts = list_parts(plan.parts);
  const std::string argument =
      limit_bytes > 0 || parts.first_option.empty() ? "--device-memory-limit" : parts.first_option;
  throw Error::in_argument(
      argument,
      fmt::format("this rank needs about {} of device memory ({}), more than {}; lower: {}", human(plan.total()),
                  parts.listed, where, parts.advice.empty() ? "nothing can be lowered" : parts.advice));
}

void check_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, int ranks_on_node) {
  std::int64_t room = limit_bytes;
  std::int64_t need = plan.resident();
  std::string where = fmt::format("the limit of {} per rank", human(limit_bytes));
  if (limit_bytes <= 0) {
    const std::int64_t available = core::available_bytes(), resident = core::resident_bytes();
    if (available < 0 || resident < 0) return;
    // What is still to come for every rank on this machine, against what the machine has left.
    need = std::max<std::int64_t>(0, plan.resident() - resident) * ranks_on_node;
    room = available;
    where = fmt::format("the {} this machine has available{}", human(available),
                        ranks_on_node > 1 ? fmt::format(" for its {} ranks", ranks_on_node) : "");
  }
  if (need <= room) return;
  std::vector<MemoryPart> resident_parts;
  for (const auto& p : plan.parts)
    if (p.residence == Residence::kResident) resident_parts.push_back(p);
  const PartList parts = list_parts(resident_parts);
  const std::string argument = limit_bytes > 0 || parts.first_option.empty() ? "--memory-limit" : parts.first_option;
  throw Error::in_argument(
      argument, fmt::format("this rank needs about {} of its own memory ({}; besides {} of mapped "
                            "files), more than {}; lower: {}",
                            human(plan.resident()), parts.listed, human(plan.total() - plan.resident()), where,
                            parts.advice.empty() ? "nothing can be lowered" : parts.advice));
}

std::int64_t record_memory_plan(const MemoryPlan& plan, const comm::Communicator& world, core::MetricsLog& metrics) {
  const std::vector<std::int64_t> per_rank = world.allgather(plan.total(), comm::Channel::control);
  const std::int64_t largest = *std::max_element(per_rank.begin(), per_rank.end());
  if (world.rank() == 0) {
    nlohmann::json record = plan.record();
    record["estimate_bytes_max"] = largest;
    record["estimate_bytes_per_rank"] = per_rank;
    metrics.write(record);
    std::string parts;
    for (const auto& p : plan.parts)
      if (p.bytes > 0)
        parts += fmt::format(", {} {}{}", p.name, human(p.bytes), p.residence == Residence::kResident ? "" : " mapped");
    spdlog::info("memory estimate {} per rank, {} of it mapped (rank 0{})", human(largest),
                 human(plan.total() - plan.resident()), parts);
  }
  return largest;
}

std::int64_t record_memory_peak(std::int64_t estimate, std::int64_t resident_estimate, std::int64_t private_peak,
                                const comm::Communicator& world, core::MetricsLog& metrics) {
  const std::vector<std::int64_t> per_rank = world.allgather(core::peak_resident_bytes(), comm::Channel::control);
  const std::vector<std::int64_t> private_per_rank = world.allgather(private_peak, comm::Channel::control);
  const std::vector<std::int64_t> resident_per_rank = world.allgather(resident_estimate, comm::Channel::control);
  const std::int64_t peak = *std::max_element(per_rank.begin(), per_rank.end());
  if (world.rank() != 0 || peak <= 0) return peak;
  const auto relative = [](std::int64_t estimated, std::int64_t measured) {
    return measured > 0 ? static_cast<double>(estimated - measured) / static_cast<double>(measured) : 0.0;
  };
  double private_error = 0;  // the largest difference of any rank, by size
  for (std::size_t r = 0; r < private_per_rank.size(); ++r) {
    const double e = relative(resident_per_rank[r], private_per_rank[r]);
    if (std::abs(e) > std::abs(private_error)) private_error = e;
  }
  const std::int64_t private_max = *std::max_element(private_per_rank.begin(), private_per_rank.end());
  const std::int64_t resident_max = *std::max_element(resident_per_rank.begin(), resident_per_rank.end());
  metrics.write({{"event", "memory_peak"},
                 {"estimate_bytes", estimate},
                 {"peak_bytes", peak},
                 {"error", relative(estimate, peak)},
                 {"peak_bytes_per_rank", per_rank},
                 {"resident_estimate_bytes_per_rank", resident_per_rank},
                 {"private_peak_bytes_per_rank", private_per_rank},
                 {"private_error", private_error}});
  spdlog::info("memory peak {} per rank, estimated {} ({:+.0f}%); private {}, resident estimated {} ({:+.0f}% at most)",
               human(peak), human(estimate), 100 * relative(estimate, peak), human(private_max), human(resident_max),
               100 * private_error);
  return peak;
}

void check_model_fits(const ModelShape& shape, std::int64_t limit_bytes, int ranks_on_node) {
  const auto in = static_cast<double>(shape.in_features), hidden = static_cast<double>(shape.hidden),
             classes = static_cast<double>(shape.num_classes);
  const double output = shape.layers <= 1 ? in * classes : hidden * classes;
  const double rest = shape.layers <= 1 ? 0 : in * hidden + std::max(0, shape.layers - 2) * hidden * hidden;
  constexpr double kBytesPerParameter = 16;  // weight, gradient, Adam's two moments
  const double bytes = (output + rest) * kBytesPerParameter;
  const std::int64_t available = core::available_bytes();
  const double room = limit_bytes > 0 ? static_cast<double>(limit_bytes)
                      : available > 0 ? static_cast<double>(available) / std::max(1, ranks_on_node)
                                      : -1;
  if (room < 0 || bytes <= room) return;
  const std::string need = fmt::format(
      "a model of {} layers, hidden {}, {} input features and {} classes has at least "
      "{:.3g} parameters, {} with their gradients and Adam's moments, more than the "
      "{} a rank has{}",
      shape.layers, shape.hidden, shape.in_features, shape.num_classes, (output + rest), core::human_bytes(bytes),
      core::human_bytes(room), limit_bytes > 0 ? " (--memory-limit)" : "");
  if (output > rest && shape.layers > 1)
    throw Error::in_file(shape.store + "/meta.json", 0,
                         fmt::format("num_classes is {} (the largest label + 1): {}; a stray label? `loom check` "
                                     "lists the labels",
                                     shape.num_classes, need));
  throw Error::in_argument("--hidden", need + "; lower --hidden or --layers");
}

}  // namespace loom::train
