// Communicator::agree / agree_on: collective validation checkpoints (see mpi_session.hpp).
#include <climits>
#include <exception>

#include "loom/comm/communicator.hpp"
#include "loom/comm/mpi_detail.hpp"

namespace loom::comm {

void Communicator::agree(bool ok, const std::string& message) const {
  const int failing = allreduce_min(ok ? INT_MAX : rank(), Channel::control);
  if (failing == INT_MAX) return;
  std::string text = rank() == failing ? message : std::string();
  broadcast(text, failing, Channel::control);
  detail::mark_agreed_failure();
  throw AgreedError(failing, size() > 1 ? fmt::format("rank {}: {}", failing, text) : text);
}

void Communicator::agree_on(const std::function<void()>& step) const {
  bool ok = true;
  std::string message;
  try {
    step();
  } catch (const AgreedError&) {
    throw;  // already agreed by every rank inside step()
  } catch (const std::exception& e) {
    ok = false;
    message = e.what();
  }
  agree(ok, message);
}

}  // namespace loom::comm
