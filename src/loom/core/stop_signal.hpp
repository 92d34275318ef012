// Graceful stop on SIGTERM / SIGINT (a scheduler's preemption, Ctrl-C): install_stop_handlers()
// replaces the default action (end the process at once) by recording the signal; a trainer polls
// stop_signal() at its step boundaries, agrees on it with the other ranks, writes a checkpoint and
// returns, and the command exits with 128 + the signal. A second signal of the same kind ends the
// process at once, as the default would.
#pragma once

namespace loom::core {

void install_stop_handlers();
// The signal received since install_stop_handlers() (SIGTERM or SIGINT), or 0.
int stop_signal();

}  // namespace loom::core
