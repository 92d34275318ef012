#include "loom/loader/device_setup.hpp"

#include <array>
#include <algorithm>
#include <cmath>

#include <c10/util/Exception.h>

#include "loom/core/memory.hpp"
#include "loom/loader/cache_setup.hpp"

namespace loom::loader {

DeviceFeatures build_device_features(double device_rows, HostReads reads, const TrainingBatches& batches,
                                     const TrainingData& data, torch::Device device, comm::Communicator& world) {
  DeviceFeatures features;
  world.agree_on([&] {
    feature::HotTier tier;
    const auto capacity = static_cast<std::int64_t>(std::llround(device_rows * static_cast<double>(data.num_local)));
    if (capacity > 0) {
      // The vip policy's score of every vertex; this rank's rows are [offset, offset + num_local).
      const std::vector<double> vip =
          feature::cache_scores(feature::CachePolicy::kVip, cache_context(batches, data, world.rank()));
      tier = feature::HotTier::hottest(std::span(vip).subspan(data.offset, data.num_local), capacity);
    }
    const std::int64_t rows = tier.size();
    try {
      features = DeviceFeatures(device, data.features, std::move(tier), &world, reads);
    } catch (const c10::OutOfMemoryError&) {
      const auto bytes = static_cast<double>(data.features.bytes()) * static_cast<double>(rows) /
                         static_cast<double>(std::max<std::int64_t>(1, data.features.rows()));
      throw Error::in_argument("--device-rows", fmt::format("{} of this rank's rows ({}) do not fit in the free memory "
                                                            "of {}; lower --device-rows",
                                                            rows, core::human_bytes(bytes), device.str()));
    }
  });
  return features;
}

nlohmann::json device_record(const DeviceFeatures& features, const TrainingData& data, comm::Communicator& world) {
  std::array<std::int64_t, 3> sums{features.tier().size(), features.tier_bytes(), data.num_local};
  world.allreduce_sum(sums, comm::Channel::control);
  std::array<double, 2> scores{features.tier().tier_score(), features.tier().total_score()};
  world.allreduce_sum(scores, comm::Channel::control);
  return {{"event", "device"},    {"device", features.device().str()},
          {"tier_rows", sums[0]}, {"tier_bytes", sums[1]},
          {"own_rows", sums[2]},  {"tier_vip_share", scores[1] > 0 ? scores[0] / scores[1] : 0.0}};
}

}  // namespace loom::loader
