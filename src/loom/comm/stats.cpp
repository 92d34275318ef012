#include "loom/comm/stats.hpp"

#include <cmath>
#include <string>

namespace loom::comm {

ChannelStats& ChannelStats::operator+=(const ChannelStats& o) {
  bytes_sent += o.bytes_sent;
  bytes_received += o.bytes_received;
  messages_sent += o.messages_sent;
  messages_received += o.messages_received;
  link_seconds += o.link_seconds;
  return *this;
}

ChannelStats& ChannelStats::operator-=(const ChannelStats& o) {
  bytes_sent -= o.bytes_sent;
  bytes_received -= o.bytes_received;
  messages_sent -= o.messages_sent;
  messages_received -= o.messages_received;
  link_seconds -= o.link_seconds;
  return *this;
}

nlohmann::json ChannelStats::to_json() const {
  return {{"bytes_sent", bytes_sent},
          {"bytes_received", bytes_received},
          {"messages_sent", messages_sent},
          {"messages_received", messages_received},
          {"link_seconds", link_seconds}};
}

ChannelStats CommStats::total() const {
  ChannelStats sum;
  for (Channel c : kAllChannels)
    if (between_ranks(c)) sum += (*this)[c];
  return sum;
}

CommStats& CommStats::operator+=(const CommStats& other) {
  for (std::size_t i = 0; i < kNumChannels; ++i) channels_[i] += other.channels_[i];
  return *this;
}

CommStats& CommStats::operator-=(const CommStats& other) {
  for (std::size_t i = 0; i < kNumChannels; ++i) channels_[i] -= other.channels_[i];
  return *this;
}

nlohmann::json CommStats::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (Channel c : kAllChannels) out[std::string(channel_name(c))] = (*this)[c].to_json();
  out["total"] = total().to_json();
  return out;
}

nlohmann::json GlobalCommStats::to_json() const {
  nlohmann::json out = {{"sum", sum.to_json()}, {"max", max.to_json()}};
  if (!per_rank.empty()) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const CommStats& s : per_rank) ranks.push_back(s.to_json());
    out["per_rank"] = std::move(ranks);
  }
  return out;
}

void Counters::add_sent(Channel channel, std::uint64_t bytes, std::uint64_t messages) {
  Slot& s = slot(channel);
  s.bytes_sent.fetch_add(bytes, std::memory_order_relaxed);
  s.messages_sent.fetch_add(messages, std::memory_order_relaxed);
}

void Counters::add_received(Channel channel, std::uint64_t bytes, std::uint64_t messages) {
  Slot& s = slot(channel);
  s.bytes_received.fetch_add(bytes, std::memory_order_relaxed);
  s.messages_received.fetch_add(messages, std::memory_order_relaxed);
}

void Counters::add_link_seconds(Channel channel, double seconds) {
  if (seconds <= 0) return;
  slot(channel).link_nanoseconds.fetch_add(static_cast<std::uint64_t>(std::llround(seconds * 1e9)),
                                           std::memory_order_relaxed);
}

CommStats Counters::snapshot() const {
  CommStats out;
  for (Channel c : kAllChannels) {
    const Slot& s = slots_[static_cast<std::size_t>(c)];
    ChannelStats& o = out[c];
    o.bytes_sent = s.bytes_sent.load(std::memory_order_relaxed);
    o.bytes_received = s.bytes_received.load(std::memory_order_relaxed);
    o.messages_sent = s.messages_sent.load(std::memory_order_relaxed);
    o.messages_received = s.messages_received.load(std::memory_order_relaxed);
    o.link_seconds = static_cast<double>(s.link_nanoseconds.load(std::memory_order_relaxed)) * 1e-9;
  }
  return out;
}

void Counters::reset() {
  for (Slot& s : slots_) {
    s.bytes_sent.store(0, std::memory_order_relaxed);
    s.bytes_received.store(0, std::memory_order_relaxed);
    s.messages_sent.store(0, std::memory_order_relaxed);
    s.messages_received.store(0, std::memory_order_relaxed);
    s.link_nanoseconds.store(0, std::memory_order_relaxed);
  }
}

}  // namespace loom::comm
