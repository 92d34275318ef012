#include "loom/train/device_setup.hpp"

#include <array>
#include <cmath>

#include "loom/train/cache_setup.hpp"

namespace loom::train {

DeviceFeatures build_device_features(const MinibatchOptions& options, const TrainingData& data,
                                     std::span<const std::int32_t> fanouts, torch::Device device,
                                     comm::Communicator& world) {
  DeviceFeatures features;
  world.agree_on([&] {
    feature::HotTier tier;
    const auto capacity = static_cast<std::int64_t>(std::llround(options.device_rows * static_cast<double>(data.num_local)));
    if (capacity > 0) {
      // The vip policy's score of every vertex; this rank's rows are [offset, offset + num_local).
      const std::vector<double> vip = feature::cache_scores("vip", cache_context(options, data, fanouts, world.rank()));
      tier = feature::HotTier::hottest(std::span(vip).subspan(data.offset, data.num_local), capacity);
    }
    features = DeviceFeatures(device, data.features, std::move(tier));
  });
  return features;
}

nlohmann::json device_record(const DeviceFeatures& features, const TrainingData& data, comm::Communicator& world) {
  std::array<std::int64_t, 3> sums{features.tier().size(), features.tier_bytes(), data.num_local};
  world.allreduce_sum(sums, comm::Channel::control);
  return {{"event", "device"}, {"device", features.device().str()}, {"tier_rows", sums[0]},
          {"tier_bytes", sums[1]}, {"own_rows", sums[2]}};
}

}  // namespace loom::train
