#include "loom/loader/device_features.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "loom/core/error.hpp"
#include "loom/nn/device.hpp"

namespace loom::loader {
namespace {

feature::RowTable rows_of(std::vector<float> values, std::int64_t dim) {
  return feature::RowTable::owned(std::move(values), dim);
}

// The tier holds own rows 2 and 0 (slots 0, 1); a batch reads own rows 0, 1, 2 at positions 2, 0, 1.
TEST(DeviceFeatures, AssembleWritesTheTierRowsAtTheirPositions) {
  const auto local = rows_of({0, 1, 10, 11, 20, 21}, 2);
  const std::vector<double> score{0.5, 0.1, 0.9};
  const DeviceFeatures device(torch::kCPU, local, feature::HotTier::hottest(score, 2));
  EXPECT_EQ(device.tier_bytes(), 2 * 2 * 4);
  auto host = device.host_buffer(3, 2).fill_(-1);
  host[0] = torch::tensor({10.0f, 11.0f});  // own row 1: gathered on the host, packed first
  feature::TierRows tier_rows;
  tier_rows.positions = {2, 1};
  tier_rows.slots = {device.tier().slot(0), device.tier().slot(2)};
  tier_rows.staged = {0};
  const auto x = device.assemble(host, tier_rows);
  EXPECT_TRUE(torch::equal(x, torch::tensor({10.0f, 11.0f, 20.0f, 21.0f, 0.0f, 1.0f}).view({3, 2})));
}

// Mapped reads: the tier holds own row 2; own rows 0 and 1 are read in place; one staged row (a
// remote one) comes from the host buffer. A batch of own rows only is read without a host buffer.
TEST(DeviceFeatures, MappedOwnRowsAreReadInPlaceBesideTheTierAndTheStagedRows) {
  const auto local = rows_of({0, 1, 10, 11, 20, 21}, 2);
  const std::vector<double> score{0.1, 0.2, 0.9};
  const DeviceFeatures device(torch::kCPU, local, feature::HotTier::hottest(score, 1), nullptr, HostReads::kMapped);
  EXPECT_TRUE(device.maps_own_rows());
  auto host = device.host_buffer(1, 2).fill_(-1);
  host[0] = torch::tensor({7.0f, 8.0f});  // a remote row, staged
  feature::TierRows tier_rows;
  tier_rows.positions = {1};
  tier_rows.slots = {device.tier().slot(2)};
  tier_rows.mapped_positions = {3, 0};
  tier_rows.mapped_rows = {0, 1};
  tier_rows.staged = {2};
  EXPECT_TRUE(torch::equal(device.assemble(host, tier_rows),
                           torch::tensor({10.0f, 11.0f, 20.0f, 21.0f, 7.0f, 8.0f, 0.0f, 1.0f}).view({4, 2})));
  feature::TierRows own_only;
  own_only.mapped_positions = {0, 1};
  own_only.mapped_rows = {2, 0};
  EXPECT_TRUE(torch::equal(device.assemble(host, own_only), torch::tensor({20.0f, 21.0f, 0.0f, 1.0f}).view({2, 2})));
  const DeviceFeatures staged(torch::kCPU, local, feature::HotTier{}, nullptr, HostReads::kStaged);
  EXPECT_FALSE(staged.maps_own_rows());
  EXPECT_THROW(staged.assemble(host, own_only), Error);
}

TEST(DeviceFeatures, Float16RowsKeepTheirDtypeOnTheDevice) {
  std::vector<format::Half> half;
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) half.push_back(format::float_to_half(v));
  const auto local = feature::RowTable::owned(std::move(half), 2);
  const std::vector<double> score{0.0, 1.0};
  const DeviceFeatures device(torch::kCPU, local, feature::HotTier::hottest(score, 1));
  EXPECT_EQ(device.tier_bytes(), 2 * 2);
  auto host = device.host_buffer(1, 2).zero_();
  feature::TierRows tier_rows;
  tier_rows.positions = {0};
  tier_rows.slots = {0};
  EXPECT_TRUE(torch::equal(device.assemble(host, tier_rows), torch::tensor({3.0f, 4.0f}).view({1, 2})));
}

TEST(DeviceFeatures, DeviceNamesAreCheckedAndCudaNeedsAGpu) {
  EXPECT_TRUE(nn::resolve_device(nn::parse_device_choice("cpu"), 3).is_cpu());
  EXPECT_THROW(nn::parse_device_choice("gpu"), Error);
  EXPECT_THROW(nn::parse_device_choice("cuda:x"), Error);
  EXPECT_THROW(nn::parse_device_choice("cuda:-1"), Error);
  EXPECT_EQ(nn::parse_device_choice("cuda:3").name(), "cuda:3");
  EXPECT_EQ(nn::parse_device_choice("cuda").name(), "cuda");
  if (torch::cuda::is_available()) {
    EXPECT_TRUE(nn::resolve_device(nn::parse_device_choice("cuda"), 0).is_cuda());
    return;
  }
  try {
    nn::resolve_device(nn::parse_device_choice("cuda"), 0);
    FAIL() << "cuda without a GPU must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--device"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::loader
