// Ending on SIGTERM / SIGINT (a scheduler's preemption, Ctrl-C) without leaving anything behind.
// install_cleanup_handlers() (every `loom` command, from its start): the signal removes the
// command's temporary outputs (core/fs.hpp's registry), says so on stderr and ends the process as
// the signal's default action would (status 128 + signal); an existing output stays as it was.
// install_stop_handlers() (the trainers): the signal is recorded instead; a trainer polls
// stop_signal() at its step boundaries, agrees on it with the other ranks, writes a checkpoint and
// returns, and the command exits with 128 + the signal. A second signal of the same kind ends the
// process at once (as above), and so does the first when the process has not ended
// kStopGraceSeconds after it (a step that runs for minutes, a rank stuck in a collective): a
// signal ends any run within seconds, whatever it is doing (its last checkpoint stays whole).
#pragma once

namespace loom::core {

inline constexpr unsigned kStopGraceSeconds = 10;

void install_cleanup_handlers();
void install_stop_handlers();
// The signal received since install_stop_handlers() (SIGTERM or SIGINT), or 0.
int stop_signal();

}  // namespace loom::core
