#include "loom/control/llm_controller.hpp"

#include <algorithm>
#include <cctype>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/timer.hpp"

namespace loom::control {

std::string llm_system_prompt() {
  return "You control the prefetch buffer of one rank in distributed graph neural network training. The buffer "
         "holds feature rows of remote (halo) nodes. Every row's score decays each minibatch and is restored when "
         "the row is used; rows idle for too long are eviction candidates. Evicting replaces them with the halo "
         "nodes missed most often; their rows travel with the next minibatch's request. Evict when it should raise "
         "the hit rate and lower remote rows and fetch time; keep when the buffer already serves the workload or "
         "the last evictions did not help. Answer with one JSON object only: {\"decision\": \"evict\" or \"keep\", "
         "\"explanation\": a short reason, \"expected_impact\": what you expect to change}.";
}

std::string llm_user_prompt(const ControlContext& context) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : context.window)
    steps.push_back({{"step", s.step},
                     {"hit_rate", s.hit_rate()},
                     {"remote_rows", s.remote_rows},
                     {"fetch_seconds", s.fetch_seconds},
                     {"step_seconds", s.step_seconds},
                     {"occupancy", s.occupancy},
                     {"candidate_share", s.candidate_share}});
  nlohmann::json recent = nlohmann::json::array();
  for (const auto& r : context.recent) recent.push_back(r.to_json());
  const nlohmann::json prompt = {{"facts", context.facts},
                                 {"window", summarize(context.window).to_json()},
                                 {"minibatches", steps},
                                 {"recent_decisions", recent}};
  return "Current state of the prefetch buffer (JSON):\n" + prompt.dump(1) + "\nShould the buffer evict now?";
}

Decision parse_llm_answer(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw Error("the answer is not JSON: '" + text.substr(0, 200) + "'");
  }
  if (!j.is_object() || !j.contains("decision"))
    throw Error("the answer has no \"decision\": " + j.dump().substr(0, 200));
  Decision d;
  const auto& decision = j["decision"];
  if (decision.is_boolean()) {
    d.evict = decision.get<bool>();
  } else if (decision.is_string()) {
    std::string value = decision.get<std::string>();
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    if (value != "evict" && value != "keep")  // input text: the LLM's answer
      throw Error("\"decision\" must be \"evict\" or \"keep\", got '" + value + "'");
    d.evict = value == "evict";  // input text: the LLM's answer
  } else {
    throw Error("\"decision\" must be \"evict\" or \"keep\", got " + decision.dump());
  }
  const auto text_of = [&](const char* key) {
    if (!j.contains(key)) return std::string();
    return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
  };
  d.explanation = text_of("explanation");
  d.expected_impact = text_of("expected_impact");
  d.source = "llm";
  return d;
}

LlmController::LlmController(const ControllerOptions& o, std::unique_ptr<Controller> fallback)
    : client_({o.llm_url, o.llm_model, o.llm_api, o.llm_timeout, o.llm_retries}), fallback_(std::move(fallback)) {
  available_ = client_.reachable(std::min(2.0, o.llm_timeout));
  if (!available_) {
    spdlog::warn("LLM controller: {} ({}) is unreachable; the '{}' controller decides instead", o.llm_url,
                 core::enum_name(kLlmApiNames, o.llm_api), fallback_->name());
    return;
  }
  worker_ = std::thread([this] { work(); });
}

LlmController::~LlmController() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  client_.stop();
  if (worker_.joinable()) worker_.join();
}

std::int64_t LlmController::answers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return answers_;
}

std::int64_t LlmController::failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_;
}

Decision LlmController::fall_back(const ControlContext& context, const std::string& why) {
  Decision d = fallback_->decide(context);
  d.explanation = "llm " + why + "; " + fallback_->name() + ": " + d.explanation;
  d.source = fallback_->name() + " (fallback)";
  d.fell_back = true;
  return d;
}

Decision LlmController::decide(const ControlContext& context) {
  if (!available_) return fall_back(context, "unreachable");
  std::lock_guard<std::mutex> lock(mutex_);
  if (!in_flight_ && !request_ && !answer_ && failure_.empty()) {
    request_ = context;
    wake_.notify_one();
  }
  return pending_decision();
}

Decision LlmController::poll() {
  if (!available_) return pending_decision();
  std::unique_lock<std::mutex> lock(mutex_);
  if (answer_) {
    Decision d = std::move(*answer_);
    answer_.reset();
    return d;
  }
  if (!failure_.empty()) {
    const std::string why = std::move(failure_);
    failure_.clear();
    const ControlContext context = asked_;
    lock.unlock();
    spdlog::warn("LLM controller: {}; falling back to '{}' for this window", why, fallback_->name());
    return fall_back(context, "failed (" + why + ")");
  }
  return pending_decision();
}

void LlmController::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || request_.has_value(); });
    if (stopping_) return;
    asked_ = std::move(*request_);
    request_.reset();
    in_flight_ = true;
    const std::string user = llm_user_prompt(asked_);
    lock.unlock();
    core::Timer timer;
    std::optional<Decision> decision;
    std::string failure;
    try {
      decision = parse_llm_answer(client_.chat(llm_system_prompt(), user));
      decision->latency_seconds = timer.seconds();
    } catch (const std::exception& e) {
      failure = fmt::format("{} after {:.2f}s", e.what(), timer.seconds());
    }
    lock.lock();
    in_flight_ = false;
    if (stopping_) return;
    if (decision) {
      answer_ = std::move(decision);
      ++answers_;
    } else {
      failure_ = std::move(failure);
      ++failures_;
    }
  }
}

}  // namespace loom::control
