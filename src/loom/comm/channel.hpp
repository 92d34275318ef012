// Channel: what a transfer carries. Every comm:: call names one, and the per-channel counters
// (stats.hpp) let a run report bytes and messages per kind of traffic: remote feature rows,
// gradient all-reduce, pipeline activations, embedding rows, control, halo exchange, weights.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom::comm {

enum class Channel : std::uint8_t { features, gradients, activations, embeddings, control, halo, weights };

inline constexpr std::size_t kNumChannels = 7;

inline constexpr std::array<Channel, kNumChannels> kAllChannels = {
    Channel::features, Channel::gradients, Channel::activations, Channel::embeddings,
    Channel::control,  Channel::halo,      Channel::weights};

// "features", "gradients", ... (the names used in JSON reports).
std::string_view channel_name(Channel channel);

}  // namespace loom::comm
