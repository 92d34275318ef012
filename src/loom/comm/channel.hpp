// Channel: what a transfer carries. Every comm:: call names one, and the per-channel counters
// (stats.hpp) let a run report bytes and messages per kind of traffic: remote feature rows,
// gradient all-reduce, pipeline activations, embedding rows, control, halo exchange, weights,
// partitioning (the graph's edges and part ids a distributed partitioner moves).
// One channel does not cross ranks: `device`, the copies between a rank's host memory and its GPU
// (sent = host to device, received = device to host), counted by Communicator::count_device().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom::comm {

enum class Channel : std::uint8_t {
  features,
  gradients,
  activations,
  embeddings,
  control,
  halo,
  weights,
  partition,
  device
};

inline constexpr std::size_t kNumChannels = 9;

inline constexpr std::array<Channel, kNumChannels> kAllChannels = {
    Channel::features, Channel::gradients, Channel::activations, Channel::embeddings, Channel::control,
    Channel::halo,     Channel::weights,   Channel::partition,   Channel::device};

// False for Channel::device only.
constexpr bool between_ranks(Channel channel) { return channel != Channel::device; }

// "features", "gradients", ... (the names used in JSON reports).
std::string_view channel_name(Channel channel);

}  // namespace loom::comm
