#include "loom/core/stop_signal.hpp"

#include <unistd.h>

#include <csignal>

namespace loom::core {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// Ends the process as the recorded signal's default action would (status 128 + signal).
extern "C" void stop_now(int) {
  const int signal = g_stop_signal != 0 ? g_stop_signal : SIGTERM;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

extern "C" void record_stop_signal(int signal) {
  if (g_stop_signal == signal) {  // asked twice: stop now
    stop_now(signal);
    return;
  }
  g_stop_signal = signal;
  alarm(kStopGraceSeconds);  // async-signal-safe; SIGALRM then stops the process if it has not ended
}

}  // namespace

void install_stop_handlers() {
  std::signal(SIGALRM, stop_now);
  std::signal(SIGTERM, record_stop_signal);
  std::signal(SIGINT, record_stop_signal);
}

int stop_signal() { return g_stop_signal; }

}  // namespace loom::core
