// Prefetch controllers (Rudder): after each minibatch a controller sees a window of
// per-minibatch statistics of the rank's prefetch buffer, plus the last decisions and their
// measured effect, and decides whether the buffer evicts and replaces now. One interface, one
// file per controller, a registry by name:
//   never     static prefetch (the buffer keeps its initial contents)
//   periodic  evict every `period` minibatches (MassiveGNN)
//   rules     hand-written rules over the same statistics
//   logistic  online logistic regression on the effect of past evictions
//   llm       an LLM agent over HTTP (llm_controller.hpp), asynchronous
// decide() and poll() must return quickly: they run on the pipeline's producer thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/control/llm_client.hpp"
#include "loom/core/enum_names.hpp"

namespace loom::control {

// One minibatch, as the prefetch buffer and the pipeline saw it.
struct StepStats {
  std::int64_t step = 0;         // minibatch index since the start of training
  double epoch_progress = 0;     // in [0, 1)
  std::int64_t lookups = 0;      // remote rows looked up in the buffer
  std::int64_t hits = 0;         // of which served by it
  std::int64_t remote_rows = 0;  // rows fetched from other ranks (misses + replacements)
  double fetch_seconds = 0;
  double step_seconds = 0;     // the latest training step's compute time
  double occupancy = 0;        // buffered rows / capacity
  double candidate_share = 0;  // eviction candidates / capacity
  double hit_rate() const { return lookups > 0 ? static_cast<double>(hits) / lookups : 0; }
};

// Window averages.
struct WindowSummary {
  double hit_rate = 0, remote_rows = 0, fetch_seconds = 0, step_seconds = 0, occupancy = 0, candidate_share = 0;
  double epoch_progress = 0;
  nlohmann::json to_json() const;
};
WindowSummary summarize(const std::deque<StepStats>& steps);

// A decision and, once the next window has been seen, its measured effect.
struct DecisionRecord {
  std::int64_t step = 0;
  bool evict = false;
  std::string source;  // the controller that decided (e.g. "llm", or "rules" as a fallback)
  std::string explanation;
  WindowSummary before;
  bool measured = false;
  WindowSummary after;  // the window that followed
  nlohmann::json to_json() const;
};

struct Decision {
  bool evict = false;
  std::string source;
  std::string explanation;
  std::string expected_impact;  // llm only
  double latency_seconds = 0;   // llm only: request to answer
  bool pending = false;         // no decision yet (an asynchronous controller is still thinking)
  bool fell_back = false;       // llm only: its fallback controller decided (no usable answer)
};

inline Decision make_decision(bool evict, std::string source, std::string explanation) {
  Decision d;
  d.evict = evict;
  d.source = std::move(source);
  d.explanation = std::move(explanation);
  return d;
}

// "Nothing decided yet" (an asynchronous controller still waiting for its answer).
inline Decision pending_decision() {
  Decision d;
  d.pending = true;
  return d;
}

struct ControlContext {
  std::deque<StepStats> window;        // the last `window_size` minibatches, oldest first
  std::vector<DecisionRecord> recent;  // the last decisions (at most 5), oldest first
  nlohmann::json facts;                // static facts: graph, partition, batch size, capacity
};

class Controller {
 public:
  virtual ~Controller() = default;
  // At the end of each window of minibatches.
  virtual Decision decide(const ControlContext& context) = 0;
  // After every minibatch: an asynchronous controller's decision that has just arrived, if any
  // (it applies to the batch being prefetched now).
  virtual Decision poll() { return pending_decision(); }
  virtual std::string name() const = 0;
};

// kNone: no prefetch buffer at all (the trainer builds none); the others are controllers.
enum class ControllerKind { kNone, kNever, kLookahead, kPeriodic, kRules, kLogistic, kLlm };
inline constexpr core::EnumNames<ControllerKind, 7> kControllerNames{{{"none", ControllerKind::kNone},
                                                                      {"never", ControllerKind::kNever},
                                                                      {"lookahead", ControllerKind::kLookahead},
                                                                      {"periodic", ControllerKind::kPeriodic},
                                                                      {"rules", ControllerKind::kRules},
                                                                      {"logistic", ControllerKind::kLogistic},
                                                                      {"llm", ControllerKind::kLlm}}};

struct ControllerOptions {
  ControllerKind kind = ControllerKind::kRules;
  int period = 32;         // periodic: minibatches between evictions
  std::uint64_t seed = 0;  // logistic: exploration
  // llm
  std::string llm_url = "http://localhost:11434";
  std::string llm_model = "llama3.2";
  LlmApi llm_api = LlmApi::kOllama;
  double llm_timeout = 10.0;  // seconds per request
  int llm_retries = 2;
  ControllerKind llm_fallback = ControllerKind::kRules;  // never | periodic | rules | logistic
};

// Throws Error naming --controller, --prefetch-period or an --llm-* option for a value it cannot
// take (kNone, or a fallback that is not a plain controller).
void check(const ControllerOptions& options);
std::unique_ptr<Controller> make_controller(const ControllerOptions& options);

}  // namespace loom::control
