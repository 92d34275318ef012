// An LLM server's HTTP answers: the reply body (Ollama or OpenAI shape) and the decision the
// model's message holds (the llm controller's input).
#include "fuzz_input.hpp"
#include "loom/control/llm_client.hpp"
#include "loom/control/llm_controller.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 3);
  loom::fuzz::expect_parse_or_error([&] {
    if (input.mode == 2) {
      loom::control::parse_llm_answer(std::string(input.bytes));
    } else {
      const std::string message = loom::control::message_of_reply(
          std::string(input.bytes), input.mode == 0 ? loom::control::LlmApi::kOllama : loom::control::LlmApi::kOpenAI,
          "http://fuzz");
      loom::control::parse_llm_answer(message);
    }
  });
  return 0;
}
