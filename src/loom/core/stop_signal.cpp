#include "loom/core/stop_signal.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

#include "loom/core/fs.hpp"

namespace loom::core {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// write(2) of a C string, from a signal handler.
void say(const char* text) {
  for (std::size_t left = std::strlen(text); left > 0;) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Removes the temporary outputs, says so, and ends the process as `signal`'s default action would.
[[noreturn]] void end_by(int signal) {
  const int removed = remove_registered_temporaries();
  say(signal == SIGINT ? "loom: stopped by SIGINT" : "loom: stopped by SIGTERM");
  say(removed > 0 ? "; its unfinished outputs were removed\n" : "\n");
  std::signal(signal, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  std::raise(signal);
  _exit(128 + signal);
}

extern "C" void end_now(int signal) {
  if (signal != SIGALRM) end_by(signal);
  say("loom: no step boundary came within the grace period after the signal; stopping now\n");
  end_by(g_stop_signal != 0 ? g_stop_signal : SIGTERM);
}

extern "C" void record_stop_signal(int signal) {
  if (g_stop_signal == signal) end_by(signal);  // asked twice: stop now
  g_stop_signal = signal;
  alarm(kStopGraceSeconds);  // async-signal-safe; SIGALRM then stops the process if it has not ended
}

}  // namespace

void install_cleanup_handlers() {
  std::signal(SIGTERM, end_now);
  std::signal(SIGINT, end_now);
}

void install_stop_handlers() {
  std::signal(SIGALRM, end_now);
  std::signal(SIGTERM, record_stop_signal);
  std::signal(SIGINT, record_stop_signal);
}

int stop_signal() { return g_stop_signal; }

}  // namespace loom::core
