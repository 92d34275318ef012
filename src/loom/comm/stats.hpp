// Communication counters. CommStats is a plain value: per channel, the payload bytes and
// messages this rank sent to and received from OTHER ranks (a rank's buffer to itself is never
// counted; Channel::device counts the rank's copies to and from its GPU instead), plus their
// modeled time under link emulation. Trainers snapshot it per epoch
// (`after - before`, or reset()). Counters is the live, thread-safe (relaxed atomic) store that a
// Communicator and all its dup()s add to. GlobalCommStats combines every rank's CommStats
// (Communicator::global_stats) for rank-0 reporting.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/channel.hpp"

namespace loom::comm {

struct ChannelStats {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_received = 0;
  // Modeled network time of these operations under link emulation (0 when it is off). The
  // caller waits less where the real transfer or overlapping work already took that time.
  double link_seconds = 0;

  ChannelStats& operator+=(const ChannelStats& other);
  ChannelStats& operator-=(const ChannelStats& other);
  bool operator==(const ChannelStats&) const = default;
  nlohmann::json to_json() const;
};

class CommStats {
 public:
  ChannelStats& operator[](Channel channel) { return channels_[index(channel)]; }
  const ChannelStats& operator[](Channel channel) const { return channels_[index(channel)]; }
  // Sum over the channels between ranks (all but Channel::device).
  ChannelStats total() const;
  void reset() { channels_ = {}; }

  CommStats& operator+=(const CommStats& other);
  CommStats& operator-=(const CommStats& other);
  friend CommStats operator+(CommStats a, const CommStats& b) { return a += b; }
  friend CommStats operator-(CommStats a, const CommStats& b) { return a -= b; }
  bool operator==(const CommStats&) const = default;

  // {"features": {"bytes_sent": ..., "bytes_received": ..., "messages_sent": ...,
  //  "messages_received": ..., "link_seconds": ...}, ... every channel ..., "total": {...}}
  nlohmann::json to_json() const;

 private:
  static std::size_t index(Channel channel) { return static_cast<std::size_t>(channel); }
  std::array<ChannelStats, kNumChannels> channels_{};
};

// Every rank's stats combined: `sum` and `max` (per field, over ranks) on every rank;
// `per_rank` (indexed by rank) on the root only.
struct GlobalCommStats {
  CommStats sum;
  CommStats max;
  std::vector<CommStats> per_rank;
  // {"sum": CommStats json, "max": ..., "per_rank": [...]} (per_rank only where present).
  nlohmann::json to_json() const;
};

// The live counters shared by a communicator and its duplicates; safe to add to from any thread.
class Counters {
 public:
  void add_sent(Channel channel, std::uint64_t bytes, std::uint64_t messages);
  void add_received(Channel channel, std::uint64_t bytes, std::uint64_t messages);
  void add_link_seconds(Channel channel, double seconds);
  CommStats snapshot() const;
  void reset();

 private:
  struct Slot {
    std::atomic<std::uint64_t> bytes_sent{0}, bytes_received{0}, messages_sent{0}, messages_received{0};
    std::atomic<std::uint64_t> link_nanoseconds{0};
  };
  Slot& slot(Channel channel) { return slots_[static_cast<std::size_t>(channel)]; }
  std::array<Slot, kNumChannels> slots_;
};

}  // namespace loom::comm
