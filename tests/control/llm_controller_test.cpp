// The LLM agent against a local HTTP server that speaks both protocols (Ollama's /api/chat and
// OpenAI's /v1/chat/completions) and can answer well, slowly, with malformed JSON or HTTP 500;
// plus an endpoint that refuses connections. Training never waits: decide() returns at once,
// and every failure falls back to the rules controller.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "loom/control/llm_controller.hpp"
#include "loom/core/timer.hpp"

namespace loom::control {
namespace {

enum class Mode { kValid, kSlow, kMalformed, kServerError };

class FakeLlmServer {
 public:
  FakeLlmServer() {
    const auto answer = [this](const httplib::Request& req, httplib::Response& res, bool openai) {
      ++requests;
      {
        std::lock_guard lock(body_mutex_);
        last_body_ = req.body;
      }
      const Mode m = mode.load();
      if (m == Mode::kSlow) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      if (m == Mode::kServerError) {
        res.status = 500;
        res.set_content("overloaded", "text/plain");
        return;
      }
      const std::string content =
          m == Mode::kMalformed
              ? "sure! evict."
              : R"({"decision": "evict", "explanation": "idle rows", "expected_impact": "more hits"})";
      const nlohmann::json reply =
          openai ? nlohmann::json{{"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}}}}}
                 : nlohmann::json{{"message", {{"role", "assistant"}, {"content", content}}}};
      res.set_content(reply.dump(), "application/json");
    };
    server_.Post("/api/chat", [answer](const httplib::Request& q, httplib::Response& r) { answer(q, r, false); });
    server_.Post("/v1/chat/completions",
                 [answer](const httplib::Request& q, httplib::Response& r) { answer(q, r, true); });
    server_.Get("/api/tags",
                [](const httplib::Request&, httplib::Response& r) { r.set_content("{}", "application/json"); });
    server_.Get("/v1/models",
                [](const httplib::Request&, httplib::Response& r) { r.set_content("{}", "application/json"); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeLlmServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::atomic<Mode> mode{Mode::kValid};
  std::atomic<int> requests{0};
  std::string last_body() {
    std::lock_guard lock(body_mutex_);
    return last_body_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex body_mutex_;  // the server answers on several threads
  std::string last_body_;
};

ControlContext busy_window() {
  ControlContext c;
  c.facts = {{"buffer_capacity", 100}};
  for (int s = 0; s < 4; ++s) {
    StepStats x;
    x.step = s;
    x.lookups = 100;
    x.hits = 50;
    x.occupancy = 1;
    x.candidate_share = 0.01;  // rules would keep
    c.window.push_back(x);
  }
  return c;
}

ControllerOptions options_for(const std::string& url, const std::string& api) {
  ControllerOptions o;
  o.kind = ControllerKind::kLlm;
  o.llm_url = url;
  o.llm_api = core::parse_enum(kLlmApiNames, api, "--llm-api");
  o.llm_model = "test-model";
  o.llm_timeout = 0.5;
  o.llm_retries = 1;
  return o;
}

// Asks once, then polls until the answer (or its fallback) arrives; decide() must not block.
Decision ask(Controller& c, double limit_seconds = 10) {
  core::Timer timer;
  const Decision first = c.decide(busy_window());
  EXPECT_LT(timer.seconds(), 0.1) << "decide() waited for the LLM";
  if (!first.pending) return first;
  while (timer.seconds() < limit_seconds) {
    const Decision d = c.poll();
    if (!d.pending) return d;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ADD_FAILURE() << "no decision within " << limit_seconds << " s";
  return {};
}

TEST(LlmController, OllamaAnswerDecides) {
  FakeLlmServer server;
  auto c = make_controller(options_for(server.url(), "ollama"));
  const Decision d = ask(*c);
  EXPECT_TRUE(d.evict);
  EXPECT_EQ(d.source, "llm");
  EXPECT_FALSE(d.fell_back);
  EXPECT_EQ(d.explanation, "idle rows");
  EXPECT_GT(d.latency_seconds, 0);
  const auto body = nlohmann::json::parse(server.last_body());
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["stream"], false);
  EXPECT_NE(body["messages"][1]["content"].get<std::string>().find("buffer_capacity"), std::string::npos);
}

TEST(LlmController, OpenAiAnswerDecides) {
  FakeLlmServer server;
  auto c = make_controller(options_for(server.url() + "/v1", "openai"));
  const Decision d = ask(*c);
  EXPECT_TRUE(d.evict);
  EXPECT_EQ(d.source, "llm");
  EXPECT_FALSE(d.fell_back);
}

TEST(LlmController, SlowAnswerTimesOutAndFallsBack) {
  FakeLlmServer server;
  server.mode = Mode::kSlow;
  auto c = make_controller(options_for(server.url(), "ollama"));
  const Decision d = ask(*c);
  EXPECT_FALSE(d.evict);  // the rules keep a full, busy buffer
  EXPECT_EQ(d.source, "rules (fallback)");
  EXPECT_TRUE(d.fell_back);
}

TEST(LlmController, MalformedAnswerFallsBack) {
  FakeLlmServer server;
  server.mode = Mode::kMalformed;
  auto c = make_controller(options_for(server.url(), "openai"));
  const Decision d = ask(*c);
  EXPECT_EQ(d.source, "rules (fallback)");
  EXPECT_TRUE(d.fell_back);
  EXPECT_NE(d.explanation.find("not JSON"), std::string::npos) << d.explanation;
}

TEST(LlmController, ServerErrorIsRetriedThenFallsBack) {
  FakeLlmServer server;
  server.mode = Mode::kServerError;
  auto c = make_controller(options_for(server.url(), "ollama"));
  const Decision d = ask(*c);
  EXPECT_EQ(d.source, "rules (fallback)");
  EXPECT_TRUE(d.fell_back);
  EXPECT_EQ(server.requests.load(), 2);  // one retry
  EXPECT_NE(d.explanation.find("HTTP 500"), std::string::npos) << d.explanation;
  server.mode = Mode::kValid;  // recovers on the next window
  EXPECT_EQ(ask(*c).source, "llm");
}

TEST(LlmController, RefusedConnectionFallsBackForTheWholeRun) {
  int port = 0;
  {
    httplib::Server probe;  // a port that was free a moment ago and has no listener now
    port = probe.bind_to_any_port("127.0.0.1");
  }
  auto c = make_controller(options_for("http://127.0.0.1:" + std::to_string(port), "ollama"));
  const Decision d = c->decide(busy_window());
  EXPECT_FALSE(d.pending);
  EXPECT_EQ(d.source, "rules (fallback)");
  EXPECT_TRUE(d.fell_back);
  EXPECT_NE(d.explanation.find("unreachable"), std::string::npos);
}

}  // namespace
}  // namespace loom::control
