// What this process is waiting on, for the watchdog (watchdog.hpp) to tell a rank that stopped
// taking part from one that is merely slow. A CollectiveWait lives across one blocking collective
// or message wait (every one of Communicator's); longest_wait() is the oldest in progress on any
// thread. set_progress() records where the process is (a loader's epoch and step), which the
// heartbeats carry to the neighbouring ranks and the watchdog's message names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loom::comm {

class CollectiveWait {
 public:
  explicit CollectiveWait(const char* what);  // `what`: a string literal ("allreduce", ...)
  ~CollectiveWait();
  CollectiveWait(const CollectiveWait&) = delete;
  CollectiveWait& operator=(const CollectiveWait&) = delete;

 private:
  std::uint64_t id_;
};

struct WaitInProgress {
  double seconds = 0;  // since it began
  std::string what;
};
std::optional<WaitInProgress> longest_wait();

// Where this process is: epoch and step (-1: not known).
struct Progress {
  std::int64_t epoch = -1, step = -1;
  std::string text() const;  // "epoch 2, step 17", or "" when not known
};
void set_progress(std::int64_t epoch, std::int64_t step);
Progress progress();

}  // namespace loom::comm
