// Watchdog: notices a rank that stopped answering (its link was cut, its host died, it froze)
// instead of waiting on it forever. A thread per rank sends a 1-byte heartbeat to its ring
// neighbours (ranks r - 1 and r + 1 mod K) every `period` and expects theirs; when a neighbour has
// not been heard from for `timeout` seconds, the rank prints one line naming that rank and its
// host and ends the whole job (abort_job). A busy rank still answers: its heartbeat thread never
// waits on the work. The heartbeats run on a separate_dup() of the world, so the run's reports
// stay exact; their own counts are in stats(). run_job starts one for jobs of 2+ ranks when
// watchdog_timeout() > 0 (`loom --comm-timeout SECONDS`, default 300).
// With a `collective_timeout` > 0 it also notices a rank that is alive but stopped taking part: a
// heartbeat carries whether its sender waits in a collective (collective_wait.hpp) and where it is
// (epoch and step); when this rank has waited in one collective longer than collective_timeout, it
// ends the job naming itself, where it is, what it waits in, and its neighbours: one that is not
// waiting left the loop or stalls in its own work. The Python package turns this on (a user's loop
// can leave an epoch on one rank); `loom`'s own trainers keep every rank in step themselves.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loom/comm/communicator.hpp"

namespace loom::comm {

void set_watchdog_timeout(double seconds);  // <= 0: no watchdog
double watchdog_timeout();

class Watchdog {
 public:
  // A heartbeat: whether its sender waits in a collective (1) or not (0), its epoch and step (-1: none).
  using Beat = std::array<std::int64_t, 3>;

  // Collective over `world` (a separate_dup and an allgather of host names).
  Watchdog(const Communicator& world, double timeout_seconds, double collective_timeout = 0);
  ~Watchdog();  // stops the thread and withdraws the pending receives
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // The heartbeats exchanged so far (the thread stops counting when it is stopped).
  CommStats stats() const { return comm_.stats(); }

 private:
  void run();
  // Ends the job when this rank has waited in a collective longer than collective_timeout_;
  // `heard` holds the neighbours' last heartbeats.
  void check_collective_wait(const std::vector<Beat>& heard) const;

  Communicator comm_;
  double timeout_, collective_timeout_, period_;
  std::vector<int> peers_;
  std::vector<std::string> hosts_;  // per world rank
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace loom::comm
