// Link emulation: one host models a cluster by making each transfer last at least as long as
// it would on a network of the given bandwidth and latency. Off by default (LinkModel{}).
//
// The policy, in one place: a rank has one full-duplex link. Messages on it are serialized
// and each pays the latency once, so an operation in which this rank sends m_out messages
// totalling b_out bytes and receives m_in messages totalling b_in bytes takes
//     seconds = max(m_out * latency + b_out / bandwidth,  m_in * latency + b_in / bandwidth).
// With the traffic the Communicator counts, this gives the textbook alpha-beta costs:
// pairwise all-to-all (P-1)(alpha + m beta), ring all-reduce 2(P-1) alpha + 2(P-1)/P n beta,
// a point-to-point message alpha + n beta. A host cost adds what moving messages through this
// host's network stack takes of the rank's time (system calls, copies, protocol work, waiting to be
// scheduled: not the wire), for both directions:
//     + (m_out + m_in) * host_latency + (b_out + b_in) / host_bandwidth.
// Over TCP on a busy host it is what the wire terms miss (measured on 4 ranks on 2 cores: a 1 and
// a 10 Gbit/s link both ~0.95 s an epoch slower than the wire terms alone);
// bench/bench_netcluster.sh measures both terms with bench_comm. emulate() then delays the caller until
// start + seconds, so real transfer time is not paid twice: the host's part busy (it is CPU work,
// which takes a core from the other threads and ranks as the real stack does), the wire's asleep. Concurrent operations
// on dup()ed communicators are modeled as independent (no contention between them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace loom::comm {

// What one operation moved across this rank's link (self-transfers excluded).
struct Traffic {
  std::uint64_t messages_out = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t messages_in = 0;
  std::uint64_t bytes_in = 0;
};

struct LinkModel {
  double bandwidth = 0;       // bytes per second; 0 = unlimited
  double latency = 0;         // seconds per message
  double host_bandwidth = 0;  // bytes per second the host's stack moves (out + in); 0 = free
  double host_latency = 0;    // seconds of the host's per message (sent or received)
  bool enabled() const { return bandwidth > 0 || latency > 0 || host_bandwidth > 0 || host_latency > 0; }
  // Modeled duration of an operation with this traffic (formula above); 0 for no traffic.
  double seconds(const Traffic& traffic) const;
  // Of which the host's cost.
  double host_seconds(const Traffic& traffic) const;
};

// Time source for emulation; a fake one lets tests check the arithmetic without sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() = 0;                      // seconds, monotonic
  virtual void sleep_until(double seconds) = 0;  // returns at once when already past
  // Keeps the core busy until then (default: sleeps, for clocks that only count).
  virtual void busy_until(double seconds) { sleep_until(seconds); }
};

// steady_clock + sleep.
std::shared_ptr<Clock> system_clock();

// Delays until `start + model.seconds(traffic)` on `clock`; returns the seconds it waited
// (0 when the operation already took that long or the model is off).
double emulate(const LinkModel& model, Clock& clock, double start, const Traffic& traffic);

// "10Gbit", "10Gbps", "800Mbit/s", "1.25GB", "1.25GB/s", "100MiB/s", "1e9" -> bytes per second.
// Units (case-insensitive): bit|bps with k/m/g/t prefixes are bits (decimal); B, KB, MB, GB, TB
// are decimal bytes, KiB, MiB, GiB, TiB binary bytes; a bare number is bytes per second;
// an optional "/s" may follow. Must be positive and finite. Throws Error::in_argument(name, ...).
double parse_bandwidth(const std::string& text, const std::string& name = "--net-bandwidth");

// "20us", "20µs", "1ms", "0.5s", "100ns", "0" -> seconds (>= 0). A unit is required unless
// the value is 0. Throws Error::in_argument(name, ...).
double parse_duration(const std::string& text, const std::string& name = "--net-latency");

// The CLI's --net-bandwidth / --net-latency / --net-host-bandwidth / --net-host-latency; an empty
// string leaves that part off (unlimited bandwidth / zero latency / free host), so empty strings
// give the disabled model.
LinkModel parse_link_model(const std::string& bandwidth, const std::string& latency,
                           const std::string& host_bandwidth = "", const std::string& host_latency = "");

}  // namespace loom::comm
