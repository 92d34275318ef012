// LlmController (Rudder's agent): at the end of each window it sends the static facts, the
// window's statistics and the last decisions with their measured effect to an LLM (LlmClient),
// asking for {"decision": "evict"|"keep", "explanation", "expected_impact"}. The request runs
// on the controller's own thread, so training never waits: decide() only starts a request (one
// at a time) and poll() hands over an answer when it has arrived. A refused connection, an HTTP
// error, a timeout or an answer that is not the JSON asked for is logged and replaced by the
// fallback controller's decision for the window the request was about. An endpoint that cannot
// be reached at start is reported once and the fallback decides for the whole run.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "loom/control/controller.hpp"
#include "loom/control/llm_client.hpp"

namespace loom::control {

// Parses an LLM answer; throws Error naming what is wrong with it.
Decision parse_llm_answer(const std::string& text);
// The system and user messages for one request.
std::string llm_system_prompt();
std::string llm_user_prompt(const ControlContext& context);

class LlmController : public Controller {
 public:
  LlmController(const ControllerOptions& options, std::unique_ptr<Controller> fallback);
  ~LlmController() override;

  Decision decide(const ControlContext& context) override;
  Decision poll() override;
  std::string name() const override { return "llm"; }

  std::int64_t answers() const;
  std::int64_t failures() const;

 private:
  void work();
  Decision fall_back(const ControlContext& context, const std::string& why);

  LlmClient client_;
  std::unique_ptr<Controller> fallback_;
  bool available_ = true;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<ControlContext> request_;  // waiting to be sent
  bool in_flight_ = false;
  ControlContext asked_;  // the context of the request in flight
  std::optional<Decision> answer_;
  std::string failure_;
  std::int64_t answers_ = 0, failures_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace loom::control
