#include "loom/train/minibatch/device_features.hpp"

#include <algorithm>
#include <cstring>

#include "loom/core/error.hpp"
#include "loom/core/half.hpp"
#include "loom/train/device.hpp"

namespace loom::train {

namespace {

torch::ScalarType scalar_type(core::DType dtype) {
  switch (dtype) {
    case core::DType::kFloat16: return torch::kHalf;
    case core::DType::kBFloat16: return torch::kBFloat16;
    default: return torch::kFloat32;
  }
}

}  // namespace

DeviceFeatures::DeviceFeatures(torch::Device device, const feature::RowTable& local, feature::HotTier tier,
                               const comm::Communicator* counter)
    : device_(device), tier_(std::move(tier)), copy_stream_(device), counter_(counter) {
  if (tier_.empty()) return;
  LOOM_CHECK(tier_.num_rows() == local.rows(), "device tier ranks {} own rows, the rank has {}", tier_.num_rows(),
             local.rows());
  const std::int64_t dim = local.dim();
  auto host = torch::empty({tier_.size(), dim}, scalar_type(local.dtype()));
  const auto element = static_cast<std::size_t>(host.element_size());
  const feature::RowTable rows = local.contiguous();
  const auto* src = static_cast<const char*>(rows.data());
  auto* dst = static_cast<char*>(host.data_ptr());
  const std::size_t row_bytes = element * static_cast<std::size_t>(dim);
  for (std::int64_t s = 0; s < tier_.size(); ++s)
    std::memcpy(dst + s * row_bytes, src + tier_.rows()[s] * row_bytes, row_bytes);
  rows_ = to_device(host);
}

feature::RowTable DeviceFeatures::host_rows(const feature::RowTable& local) const {
  if (!device_.is_cuda() || local.empty()) return local;
  auto pinned = torch::empty({local.rows(), local.dim()},
                             torch::TensorOptions().dtype(scalar_type(local.dtype())).pinned_memory(true));
  std::memcpy(pinned.data_ptr(), local.contiguous().data(), static_cast<std::size_t>(local.bytes()));
  auto holder = std::make_shared<torch::Tensor>(pinned);
  return feature::RowTable::adopt(holder->data_ptr(), local.rows(), local.dim(), local.dtype(),
                                  std::shared_ptr<const void>(holder, holder->data_ptr()));
}

torch::Tensor DeviceFeatures::host_buffer(std::int64_t rows, std::int64_t dim) const {
  return torch::empty({rows, dim}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(device_.is_cuda()));
}

torch::Tensor DeviceFeatures::to_device(const torch::Tensor& host) const {
  if (counter_ != nullptr) return train::to_device(host, device_, *counter_);
  return host.to(device_, /*non_blocking=*/host.is_pinned());
}

nn::MessageGraph DeviceFeatures::to_device(const nn::MessageGraph& host) const {
  if (host.device() == device_) return host;
  nn::MessageGraph moved = host.to(device_);
  if (counter_ != nullptr)
    for (const torch::Tensor& t : moved.tensors())
      counter_->count_device(static_cast<std::uint64_t>(t.numel() * t.element_size()), /*to_device=*/true);
  return moved;
}

torch::Tensor DeviceFeatures::assemble(const torch::Tensor& host, const feature::TierRows& tier_rows) const {
  if (!tier_rows.split()) return to_device(host);
  const auto staged = static_cast<std::int64_t>(tier_rows.staged.size());
  const auto hot_rows = static_cast<std::int64_t>(tier_rows.slots.size());
  // Every row from the tier: the positions are 0, 1, 2, ... and only the slots are needed.
  const std::vector<const std::vector<std::int64_t>*> parts =
      staged == 0 ? std::vector{&tier_rows.slots}
                  : std::vector{&tier_rows.slots, &tier_rows.staged, &tier_rows.positions};
  // The indices in one host tensor (pinned under CUDA), copied to the device once.
  std::int64_t total = 0;
  for (const auto* part : parts) total += static_cast<std::int64_t>(part->size());
  auto host_index = torch::empty({total}, torch::TensorOptions().dtype(torch::kInt64).pinned_memory(device_.is_cuda()));
  std::int64_t* out = host_index.data_ptr<std::int64_t>();
  for (const auto* part : parts) out = std::copy(part->begin(), part->end(), out);
  const torch::Tensor index = to_device(host_index);
  torch::Tensor hot = rows_.index_select(0, index.slice(0, 0, hot_rows)).to(torch::kFloat32);
  if (staged == 0) return hot;
  torch::Tensor x =
      torch::empty({staged + hot_rows, host.size(1)}, torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  x.index_copy_(0, index.slice(0, hot_rows, hot_rows + staged), to_device(host.slice(0, 0, staged)));
  x.index_copy_(0, index.slice(0, hot_rows + staged), hot);
  return x;
}

}  // namespace loom::train
