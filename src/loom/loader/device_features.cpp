#include "loom/loader/device_features.hpp"

#include <algorithm>
#include <cstring>

#include "loom/core/error.hpp"
#include "loom/format/half.hpp"
#include "loom/nn/device.hpp"

namespace loom::loader {

namespace {

torch::ScalarType scalar_type(format::DType dtype) {
  switch (dtype) {
    case format::DType::kFloat16: return torch::kHalf;
    case format::DType::kBFloat16: return torch::kBFloat16;
    default: return torch::kFloat32;
  }
}

// A pinned copy of `local` (a row table adopting a pinned tensor's memory).
feature::RowTable pinned_copy(const feature::RowTable& local) {
  auto pinned = torch::empty({local.rows(), local.dim()},
                             torch::TensorOptions().dtype(scalar_type(local.dtype())).pinned_memory(true));
  std::memcpy(pinned.data_ptr(), local.contiguous().data(), static_cast<std::size_t>(local.bytes()));
  auto holder = std::make_shared<torch::Tensor>(pinned);
  return feature::RowTable::adopt(holder->data_ptr(), local.rows(), local.dim(), local.dtype(),
                                  std::shared_ptr<const void>(holder, holder->data_ptr()));
}

// The rows of `table` as a host tensor sharing its memory (which it keeps alive).
torch::Tensor host_tensor(const feature::RowTable& table) {
  auto keep = std::make_shared<feature::RowTable>(table.contiguous());
  auto* data = const_cast<void*>(keep->data());  // only ever read
  return torch::from_blob(
      data, {keep->rows(), keep->dim()}, [keep](void*) mutable { keep.reset(); },
      torch::TensorOptions().dtype(scalar_type(keep->dtype())).pinned_memory(false));
}

}  // namespace

DeviceFeatures::DeviceFeatures(torch::Device device, const feature::RowTable& local, feature::HotTier tier,
                               const comm::Communicator* counter, HostReads reads)
    : device_(device), tier_(std::move(tier)), copy_stream_(device), counter_(counter) {
  if (reads == HostReads::kMapped && !local.empty()) {
    if (device_.is_cuda()) pinned_rows_ = pinned_copy(local);
    mapped_ = nn::mapped_view(host_tensor(pinned_rows_ ? *pinned_rows_ : local), device_);
  }
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
  if (pinned_rows_) return *pinned_rows_;
  if (!device_.is_cuda() || local.empty()) return local;
  return pinned_copy(local);
}

torch::Tensor DeviceFeatures::host_buffer(std::int64_t rows, std::int64_t dim) const {
  return torch::empty({rows, dim}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(device_.is_cuda()));
}

torch::Tensor DeviceFeatures::to_device(const torch::Tensor& host) const {
  if (counter_ != nullptr) return nn::to_device(host, device_, *counter_);
  return nn::with_parts_moved(
      host, [&](const torch::Tensor& part) { return part.to(device_, /*non_blocking=*/part.is_pinned()); });
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
  const auto hot = static_cast<std::int64_t>(tier_rows.slots.size());
  const auto mapped = static_cast<std::int64_t>(tier_rows.mapped_rows.size());
  // One source serving every row, in batch order, is the batch: no positions are needed.
  const bool one_source = staged == 0 && (mapped == 0 || hot == 0);
  // The indices in one host tensor (pinned under CUDA), copied to the device once: the tier's
  // slots, the mapped own rows, then the batch positions of the staged, tier and mapped rows.
  const std::vector<std::int64_t> none;
  const std::vector<const std::vector<std::int64_t>*> parts{&tier_rows.slots, &tier_rows.mapped_rows, &tier_rows.staged,
                                                            one_source ? &none : &tier_rows.positions,
                                                            one_source ? &none : &tier_rows.mapped_positions};
  std::vector<std::int64_t> starts{0};
  for (const auto* part : parts) starts.push_back(starts.back() + static_cast<std::int64_t>(part->size()));
  auto host_index =
      torch::empty({starts.back()}, torch::TensorOptions().dtype(torch::kInt64).pinned_memory(device_.is_cuda()));
  for (std::size_t k = 0; k < parts.size(); ++k)
    std::copy(parts[k]->begin(), parts[k]->end(), host_index.data_ptr<std::int64_t>() + starts[k]);
  const torch::Tensor index = to_device(host_index);
  const auto part = [&](std::size_t k) { return index.slice(0, starts[k], starts[k + 1]); };
  const torch::Tensor hot_rows = hot > 0 ? rows_.index_select(0, part(0)).to(torch::kFloat32) : torch::Tensor();
  const torch::Tensor mapped_rows = mapped > 0 ? read_mapped(part(1)) : torch::Tensor();
  if (one_source) return hot > 0 ? hot_rows : mapped_rows;
  torch::Tensor x = torch::empty({staged + hot + mapped, host.size(1)},
                                 torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  if (staged > 0) x.index_copy_(0, part(2), to_device(host.slice(0, 0, staged)));
  if (hot > 0) x.index_copy_(0, part(3), hot_rows);
  if (mapped > 0) x.index_copy_(0, part(4), mapped_rows);
  return x;
}

torch::Tensor DeviceFeatures::read_mapped(const torch::Tensor& rows) const {
  LOOM_CHECK(mapped_.defined(), "a batch lists own rows read in place, but this device does not map them");
  const torch::Tensor read = mapped_.index_select(0, rows);
  if (counter_ != nullptr)
    counter_->count_device(static_cast<std::uint64_t>(read.numel() * read.element_size()), /*to_device=*/true);
  return read.to(torch::kFloat32);
}

}  // namespace loom::loader
