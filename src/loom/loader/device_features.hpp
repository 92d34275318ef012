// Where a mini-batch trainer computes (`loom train --device cpu|cuda[:N]`) and SALIENT++'s
// storage tiers of a rank's own feature rows. The hottest own rows by VIP (a feature::HotTier,
// `--device-rows FRACTION` of them) live in device memory as one tensor in slot order, in the
// store's dtype (float32 or float16). The other rows of a batch are gathered on the host (own,
// cached, prefetched and fetched rows alike) packed into a staging buffer, pinned under CUDA, and
// copied to the device without blocking on copy_stream(), off the compute stream; the batch is
// then assembled on the device from those rows and the tier's. Under CUDA the own rows outside the
// tier are held in pinned host memory too (host_rows()). With HostReads::kMapped the device reads
// those own rows in place from that pinned memory (unified addressing, as DGL's UVA), so the host
// gathers only cached and remote rows. Every copy to the device, and every row read in place, is
// counted on Channel::device of the communicator given (when one is). On CPU the "device" tier is a
// second copy in host memory and mapped rows are read from the own rows: the same code path,
// testable.
#pragma once

#include <cstdint>
#include <optional>

#include <torch/torch.h>

#include "loom/comm/communicator.hpp"
#include "loom/feature/hot_tier.hpp"
#include "loom/feature/row_table.hpp"
#include "loom/nn/message_graph.hpp"
#include "loom/loader/copy_stream.hpp"
#include "loom/loader/loader_options.hpp"

namespace loom::loader {

class DeviceFeatures {
 public:
  DeviceFeatures() = default;  // CPU, no tier
  // Copies the tier's rows of `local` (this rank's own rows) to `device`; `counter` (may be null)
  // counts the bytes copied to the device from now on and must outlive this object.
  DeviceFeatures(torch::Device device, const feature::RowTable& local, feature::HotTier tier,
                 const comm::Communicator* counter = nullptr, HostReads reads = HostReads::kStaged);

  torch::Device device() const { return device_; }
  const feature::HotTier& tier() const { return tier_; }
  // Device memory the tier's rows take.
  std::int64_t tier_bytes() const { return rows_.defined() ? rows_.numel() * rows_.element_size() : 0; }
  // The own rows for host-side gathers: under CUDA a pinned copy of `local` (with kMapped, the
  // one the device reads), otherwise `local`.
  feature::RowTable host_rows(const feature::RowTable& local) const;
  // Whether the device reads own rows outside the tier in place (FeatureSource's own_rows_mapped).
  bool maps_own_rows() const { return mapped_.defined(); }
  // The stream batches are copied on (see copy_stream.hpp).
  const CopyStream& copy_stream() const { return copy_stream_; }

  // A float32 [rows, dim] host staging buffer (pinned under CUDA).
  torch::Tensor host_buffer(std::int64_t rows, std::int64_t dim) const;
  // The batch input on the device: the rows `host` staged (every row but the tier's and the mapped
  // ones, packed as FeatureSource::gather writes them; its first tier_rows.staged.size() rows),
  // the tier's rows and the mapped own rows, each written at its position.
  torch::Tensor assemble(const torch::Tensor& host, const feature::TierRows& tier_rows) const;
  // A host tensor or graph on the device (non-blocking from pinned memory), counted.
  torch::Tensor to_device(const torch::Tensor& host) const;
  nn::MessageGraph to_device(const nn::MessageGraph& host) const;

 private:
  // The own rows `rows` (a device index) read in place as float32, the bytes counted.
  torch::Tensor read_mapped(const torch::Tensor& rows) const;

  torch::Device device_ = torch::kCPU;
  feature::HotTier tier_;
  torch::Tensor rows_;                            // [tier size, dim] on device_, slot order
  std::optional<feature::RowTable> pinned_rows_;  // with kMapped under CUDA: the pinned own rows
  torch::Tensor mapped_;                          // with kMapped: [own rows, dim] read in place by device_
  CopyStream copy_stream_;
  const comm::Communicator* counter_ = nullptr;
};

}  // namespace loom::loader
