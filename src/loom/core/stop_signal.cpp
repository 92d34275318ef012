#include "loom/core/stop_signal.hpp"

#include <csignal>

namespace loom::core {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void record_stop_signal(int signal) {
  if (g_stop_signal == signal) {  // asked twice: stop now
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_stop_signal = signal;
}

}  // namespace

void install_stop_handlers() {
  std::signal(SIGTERM, record_stop_signal);
  std::signal(SIGINT, record_stop_signal);
}

int stop_signal() { return g_stop_signal; }

}  // namespace loom::core
