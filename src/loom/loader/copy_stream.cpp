#include "loom/loader/copy_stream.hpp"

#include <c10/core/impl/VirtualGuardImpl.h>

namespace loom::loader {

CopyStream::CopyStream(torch::Device device) {
  if (device.is_cuda()) stream_ = c10::impl::VirtualGuardImpl(device.type()).getStreamFromGlobalPool(device);
}

CopiesDone CopiesDone::record(const c10::Stream& stream) {
  CopiesDone done;
  done.device_ = stream.device();
  done.event_ = std::make_shared<c10::Event>(stream.device_type());
  done.event_->record(stream);
  return done;
}

void CopiesDone::wait(std::span<const torch::Tensor> used) const {
  if (!event_) return;
  const c10::impl::VirtualGuardImpl guard(device_.type());
  const c10::Stream compute = guard.getStream(device_);
  event_->block(compute);
  for (const torch::Tensor& t : used)
    if (t.defined() && t.device() == device_) guard.recordDataPtrOnStream(t.storage().data_ptr(), compute);
}

}  // namespace loom::loader
