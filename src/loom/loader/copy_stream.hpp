// Host-to-device copies off the compute stream, so that a batch's features reach the GPU while
// the previous batch trains (SALIENT's overlap of data movement with computation). A CopyStream
// is one stream of the device's pool; run() executes the copies with it current on the calling
// thread (the batch pipeline's producer) and returns a CopiesDone. The consumer's
// CopiesDone::wait() makes its current (compute) stream wait for those copies, without blocking
// the host, and tells the caching allocator that the copied tensors are used on that stream, so
// their memory is not handed out again before the computation on them has run. On CPU, run()
// just runs the copies and wait() does nothing: one code path for both.
// Written against LibTorch's device-generic stream API (c10::Stream, c10::Event), so the same
// source builds against a CPU-only LibTorch.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <utility>

#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <c10/core/StreamGuard.h>
#include <torch/types.h>

namespace loom::loader {

class CopiesDone {
 public:
  CopiesDone() = default;  // nothing to wait for
  // Records an event on `stream` after the work queued on it so far.
  static CopiesDone record(const c10::Stream& stream);
  // The calling thread's current stream on the copies' device waits for them; `used` (tensors
  // the copies wrote) are marked as used on that stream.
  void wait(std::span<const torch::Tensor> used) const;

 private:
  std::shared_ptr<c10::Event> event_;
  torch::Device device_ = torch::kCPU;
};

class CopyStream {
 public:
  CopyStream() = default;  // CPU: copies run as they are
  explicit CopyStream(torch::Device device);

  template <class Copies>
  CopiesDone run(Copies&& copies) const {
    if (!stream_) {
      std::forward<Copies>(copies)();
      return {};
    }
    c10::StreamGuard current(*stream_);
    std::forward<Copies>(copies)();
    return CopiesDone::record(*stream_);
  }

 private:
  std::optional<c10::Stream> stream_;
};

}  // namespace loom::loader
