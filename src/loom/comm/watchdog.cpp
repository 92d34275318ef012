#include "loom/comm/watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include <fmt/format.h>

#include "loom/comm/mpi_session.hpp"

namespace loom::comm {

namespace {

std::atomic<double> g_timeout{300.0};
constexpr int kHeartbeatTag = 7001;

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

}  // namespace

void set_watchdog_timeout(double seconds) { g_timeout.store(seconds); }
double watchdog_timeout() { return g_timeout.load(); }

Watchdog::Watchdog(const Communicator& world, double timeout_seconds)
    : comm_(world.separate_dup()), timeout_(timeout_seconds), period_(std::min(1.0, timeout_seconds / 4)) {
  const int rank = comm_.rank(), size = comm_.size();
  for (const int peer : {(rank + size - 1) % size, (rank + 1) % size})
    if (peer != rank && std::find(peers_.begin(), peers_.end(), peer) == peers_.end()) peers_.push_back(peer);
  const std::string mine = host_name();
  for (const auto& bytes : comm_.allgatherv(std::span<const char>(mine.data(), mine.size()), Channel::control))
    hosts_.emplace_back(bytes.begin(), bytes.end());
  thread_ = std::thread([this] { run(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::run() {
  using Clock = std::chrono::steady_clock;
  const std::uint8_t beat = 1;
  std::vector<std::uint8_t> inbox(peers_.size());
  std::vector<Request> receives(peers_.size()), sends(peers_.size());
  std::vector<Clock::time_point> heard(peers_.size(), Clock::now());
  for (std::size_t i = 0; i < peers_.size(); ++i)
    receives[i] = comm_.irecv(std::span(&inbox[i], 1), peers_[i], kHeartbeatTag, Channel::control);
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    const auto now = Clock::now();
    for (std::size_t i = 0; i < peers_.size(); ++i) {
      while (receives[i].test()) {
        heard[i] = now;
        receives[i] = comm_.irecv(std::span(&inbox[i], 1), peers_[i], kHeartbeatTag, Channel::control);
      }
      if (!sends[i].active() || sends[i].test())
        sends[i] = comm_.isend(std::span(&beat, 1), peers_[i], kHeartbeatTag, Channel::control);
      const double silent = std::chrono::duration<double>(now - heard[i]).count();
      if (silent > timeout_)
        abort_job(
            fmt::format("no heartbeat from rank {} (host {}) for {:.0f} s: its link, host or process is gone "
                        "(loom --comm-timeout {:g})",
                        peers_[i], hosts_[static_cast<std::size_t>(peers_[i])], silent, timeout_));
    }
    lock.lock();
    wake_.wait_for(lock, std::chrono::duration<double>(period_), [this] { return stop_; });
  }
}

}  // namespace loom::comm
