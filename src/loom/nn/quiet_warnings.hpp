// QuietWarnings drops the warnings LibTorch raises on this thread while it lives (LibTorch keeps a
// warning handler per thread). LibTorch warns, once per process, that sparse CSR tensors are in
// beta, which is not something a Loom user can act on; whoever builds one holds a QuietWarnings.
// The handler's API changed in LibTorch 2.
#pragma once

#include <string>

#include <c10/util/Exception.h>
#include <torch/version.h>

namespace loom::nn {

class QuietWarnings : public c10::WarningHandler {
 public:
  QuietWarnings() : previous_(current()) { install(this); }
  ~QuietWarnings() override { install(previous_); }
  QuietWarnings(const QuietWarnings&) = delete;
  QuietWarnings& operator=(const QuietWarnings&) = delete;
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}

 private:
  static c10::WarningHandler* current() { return c10::WarningUtils::get_warning_handler(); }
  static void install(c10::WarningHandler* h) { c10::WarningUtils::set_warning_handler(h); }
#else
  void process(const c10::SourceLocation&, const std::string&, bool) override {}

 private:
  static c10::WarningHandler* current() { return c10::Warning::get_warning_handler(); }
  static void install(c10::WarningHandler* h) { c10::Warning::set_warning_handler(h); }
#endif
  c10::WarningHandler* previous_;
};

}  // namespace loom::nn
