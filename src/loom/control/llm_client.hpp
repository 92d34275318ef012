// LlmClient: one chat request to an LLM server over HTTP, in either protocol:
//   ollama  POST {url}/api/chat             {"model", "messages", "stream": false, "format": "json"}
//           -> {"message": {"content": "..."}}
//   openai  POST {url}/v1/chat/completions  {"model", "messages", "response_format": {"type": "json_object"}}
//           -> {"choices": [{"message": {"content": "..."}}]}
// (any OpenAI-compatible server: llama.cpp, vLLM, LM Studio). Each attempt has a timeout;
// connection failures and HTTP 5xx are retried `retries` times with doubling backoff. Returns
// the assistant's message text, or throws Error saying what failed. stop() aborts a request in
// flight from another thread.
#pragma once

#include <memory>
#include <string>

#include "loom/core/enum_names.hpp"

namespace httplib {
class Client;
}

namespace loom::control {

// The two wire protocols (see above).
enum class LlmApi { kOllama, kOpenAI };
inline constexpr core::EnumNames<LlmApi, 2> kLlmApiNames{{{"ollama", LlmApi::kOllama}, {"openai", LlmApi::kOpenAI}}};

struct LlmEndpoint {
  std::string url;  // http://host:port (a trailing /v1 is accepted for openai)
  std::string model;
  LlmApi api = LlmApi::kOllama;
  double timeout_seconds = 10;
  int retries = 2;
};

// The assistant's message text in an HTTP reply body: Ollama's {"message": {"content": ...}} or,
// for LlmApi::kOpenAI, {"choices": [{"message": {"content": ...}}]}; throws Error naming `where`
// (the server's URL) when the body is anything else.
std::string message_of_reply(const std::string& body, LlmApi api, const std::string& where);

class LlmClient {
 public:
  explicit LlmClient(LlmEndpoint endpoint);
  ~LlmClient();

  // True when the server accepts connections (a short probe of its model list).
  bool reachable(double timeout_seconds = 2.0);
  std::string chat(const std::string& system, const std::string& user);
  void stop();

 private:
  LlmEndpoint endpoint_;
  std::string base_path_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace loom::control
