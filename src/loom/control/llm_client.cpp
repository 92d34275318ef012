#include "loom/control/llm_client.hpp"

#include <chrono>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.hpp"

namespace loom::control {

namespace {

// Splits "http://host:port/prefix" into the origin and the path prefix.
std::pair<std::string, std::string> split_url(const std::string& url) {
  const std::size_t start = url.find("://");
  const std::size_t slash = url.find('/', start == std::string::npos ? 0 : start + 3);
  if (slash == std::string::npos) return {url, ""};
  std::string prefix = url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return {url.substr(0, slash), prefix};
}

std::chrono::microseconds to_micros(double seconds) {
  return std::chrono::microseconds(static_cast<std::int64_t>(seconds * 1e6));
}

}  // namespace

LlmClient::LlmClient(LlmEndpoint endpoint) : endpoint_(std::move(endpoint)) {
  auto [origin, prefix] = split_url(endpoint_.url);
  if (endpoint_.api == LlmApi::kOpenAI && prefix.size() >= 3 && prefix.substr(prefix.size() - 3) == "/v1")
    prefix.resize(prefix.size() - 3);
  base_path_ = prefix;
  client_ = std::make_unique<httplib::Client>(origin);
  client_->set_connection_timeout(to_micros(endpoint_.timeout_seconds));
  client_->set_read_timeout(to_micros(endpoint_.timeout_seconds));
  client_->set_write_timeout(to_micros(endpoint_.timeout_seconds));
}

LlmClient::~LlmClient() = default;

void LlmClient::stop() { client_->stop(); }

bool LlmClient::reachable(double timeout_seconds) {
  httplib::Client probe(split_url(endpoint_.url).first);
  probe.set_connection_timeout(to_micros(timeout_seconds));
  probe.set_read_timeout(to_micros(timeout_seconds));
  const auto result = probe.Get(base_path_ + (endpoint_.api == LlmApi::kOpenAI ? "/v1/models" : "/api/tags"));
  return static_cast<bool>(result);  // any HTTP answer means the server is there
}

std::string LlmClient::chat(const std::string& system, const std::string& user) {
  const nlohmann::json messages = {{{"role", "system"}, {"content", system}}, {{"role", "user"}, {"content", user}}};
  nlohmann::json body = {{"model", endpoint_.model}, {"messages", messages}};
  std::string path;
  if (endpoint_.api == LlmApi::kOpenAI) {
    path = base_path_ + "/v1/chat/completions";
    body["response_format"] = {{"type", "json_object"}};
  } else {
    path = base_path_ + "/api/chat";
    body["stream"] = false;
    body["format"] = "json";
  }
  const std::string payload = body.dump();
  std::string failure;
  for (int attempt = 0; attempt <= endpoint_.retries; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100 << (attempt - 1)));
    const auto result = client_->Post(path, payload, "application/json");
    if (!result) {
      failure = "no answer from " + endpoint_.url + path + " (" + httplib::to_string(result.error()) + ")";
      if (result.error() == httplib::Error::Canceled) break;
      continue;
    }
    if (result->status >= 500) {
      failure = "HTTP " + std::to_string(result->status) + " from " + endpoint_.url + path;
      continue;
    }
    if (result->status != 200)
      throw Error("LLM server answered HTTP " + std::to_string(result->status) + " at " + endpoint_.url + path);
    return message_of_reply(result->body, endpoint_.api, endpoint_.url + path);
  }
  throw Error("LLM request failed after " + std::to_string(endpoint_.retries + 1) + " attempts: " + failure);
}

std::string message_of_reply(const std::string& body, LlmApi api, const std::string& where) {
  try {
    const nlohmann::json reply = nlohmann::json::parse(body);
    if (api == LlmApi::kOpenAI) return reply.at("choices").at(0).at("message").at("content").get<std::string>();
    return reply.at("message").at("content").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("LLM server at " + where + " sent an unexpected reply: " + e.what());
  }
}

}  // namespace loom::control
