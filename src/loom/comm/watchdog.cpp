#include "loom/comm/watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include <fmt/format.h>

#include "loom/comm/collective_wait.hpp"
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

// This rank's heartbeat: whether it waits in a collective (1) or not (0), and its epoch and step.
Watchdog::Beat my_beat() {
  const Progress p = progress();
  return {longest_wait() ? 1 : 0, p.epoch, p.step};
}

// " (epoch E, step S)" where the beat says, else "".
std::string where(const Watchdog::Beat& beat) {
  const std::string at = Progress{beat[1], beat[2]}.text();
  return at.empty() ? "" : " (" + at + ")";
}

}  // namespace

void set_watchdog_timeout(double seconds) { g_timeout.store(seconds); }
double watchdog_timeout() { return g_timeout.load(); }

Watchdog::Watchdog(const Communicator& world, double timeout_seconds, double collective_timeout)
    : comm_(world.separate_dup()),
      timeout_(timeout_seconds),
      collective_timeout_(collective_timeout),
      period_(std::min(1.0, timeout_seconds / 4)) {
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

void Watchdog::check_collective_wait(const std::vector<Beat>& heard) const {
  if (collective_timeout_ <= 0) return;
  const auto wait = longest_wait();
  if (!wait || wait->seconds <= collective_timeout_) return;
  std::string others;
  for (std::size_t i = 0; i < peers_.size(); ++i)
    others += fmt::format("; rank {}{} {}", peers_[i], where(heard[i]),
                          heard[i][0] ? "waits in a collective too"
                                      : "is not in a collective: it left the loop, or stalls in its own work");
  const Beat mine = my_beat();
  const std::string at = Progress{mine[1], mine[2]}.text();
  abort_job(
      fmt::format("waited {:.0f} s{} in a collective ({}) that some rank has not joined{} "  // after "rank R: "
                  "(loom.comm.set_timeout / loom --comm-timeout {:g})",
                  wait->seconds, at.empty() ? "" : " at " + at, wait->what, others, collective_timeout_));
}

void Watchdog::run() {
  using Clock = std::chrono::steady_clock;
  const std::size_t n = peers_.size();
  std::vector<Beat> inbox(n, Beat{0, -1, -1}), heard_beat(n, Beat{0, -1, -1}), outbox(n);
  std::vector<Request> receives(n), sends(n);
  std::vector<Clock::time_point> heard(n, Clock::now());
  for (std::size_t i = 0; i < n; ++i)
    receives[i] = comm_.irecv(std::span<std::int64_t>(inbox[i]), peers_[i], kHeartbeatTag, Channel::control);
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    const auto now = Clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      while (receives[i].test()) {
        heard[i] = now;
        heard_beat[i] = inbox[i];
        receives[i] = comm_.irecv(std::span<std::int64_t>(inbox[i]), peers_[i], kHeartbeatTag, Channel::control);
      }
      if (!sends[i].active() || sends[i].test()) {
        outbox[i] = my_beat();  // a buffer no send in flight reads
        sends[i] = comm_.isend(std::span<const std::int64_t>(outbox[i]), peers_[i], kHeartbeatTag, Channel::control);
      }
      const double silent = std::chrono::duration<double>(now - heard[i]).count();
      if (silent > timeout_)
        abort_job(
            fmt::format("no heartbeat from rank {} (host {}) for {:.0f} s: its link, host or process is gone "
                        "(loom --comm-timeout {:g})",
                        peers_[i], hosts_[static_cast<std::size_t>(peers_[i])], silent, timeout_));
    }
    check_collective_wait(heard_beat);
    lock.lock();
    wake_.wait_for(lock, std::chrono::duration<double>(period_), [this] { return stop_; });
  }
}

}  // namespace loom::comm
