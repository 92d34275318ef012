// Graceful stop on SIGTERM / SIGINT (a scheduler's preemption, Ctrl-C): install_stop_handlers()
// replaces the default action (end the process at once) by recording the signal; a trainer polls
// stop_signal() at its step boundaries, agrees on it with the other ranks, writes a checkpoint and
// returns, and the command exits with 128 + the signal. A second signal of the same kind ends the
// process at once, as the default would, and so does the first when the process has not ended
// kStopGraceSeconds after it (a step that runs for minutes, a rank stuck in a collective): a
// signal ends any run within seconds, whatever it is doing (its last checkpoint stays whole).
#pragma once

namespace loom::core {

inline constexpr unsigned kStopGraceSeconds = 10;

void install_stop_handlers();
// The signal received since install_stop_handlers() (SIGTERM or SIGINT), or 0.
int stop_signal();

}  // namespace loom::core
