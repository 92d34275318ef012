#include "loom/nn/gradient_sync.hpp"

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>

#include "loom/nn/device.hpp"

namespace loom::nn {

GradientSync::GradientSync(const comm::Communicator& comm, std::vector<torch::Tensor> parameters, comm::Channel channel,
                           bool average, std::size_t bucket_bytes)
    : comm_(&comm),
      parameters_(std::move(parameters)),
      channel_(channel),
      average_(average),
      bucket_elements_(bucket_bytes / sizeof(float)) {}

std::vector<std::size_t> gradient_buckets(const std::vector<std::int64_t>& parameter_sizes, std::size_t bucket_bytes,
                                          std::size_t flags) {
  const std::size_t bucket_elements = bucket_bytes / sizeof(float);
  std::vector<std::size_t> buckets;
  std::size_t first = 0;
  while (first < parameter_sizes.size()) {
    std::size_t last = first, elements = 0;
    while (last < parameter_sizes.size() &&
           (last == first || elements + static_cast<std::size_t>(parameter_sizes[last]) <= bucket_elements))
      elements += static_cast<std::size_t>(parameter_sizes[last++]);
    buckets.push_back(elements + (last == parameter_sizes.size() ? flags : 0));
    first = last;
  }
  return buckets;
}

void GradientSync::all_reduce() {
  if (comm_->size() > 1) sum_buckets({});
}

StepAgreement GradientSync::all_reduce_agreeing(int stop_signal, bool loss_finite) {
  if (comm_->size() == 1) return {stop_signal, loss_finite ? 0 : 1};
  std::array<float, kAgreementFlags> flags = {stop_signal == SIGTERM ? 1.0f : 0.0f, stop_signal == SIGINT ? 1.0f : 0.0f,
                                              loss_finite ? 0.0f : 1.0f};
  sum_buckets(flags);
  return {flags[0] > 0 ? SIGTERM : flags[1] > 0 ? SIGINT : 0, static_cast<int>(flags[2])};
}

torch::Tensor GradientSync::finite_flag() const {
  std::vector<torch::Tensor> finite;
  for (const auto& p : parameters_)
    if (p.grad().defined()) finite.push_back(torch::isfinite(p.grad()).all());
  const torch::Device device = parameters_.empty() ? torch::Device(torch::kCPU) : parameters_.front().device();
  if (finite.empty()) return torch::ones({1}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  return torch::stack(finite).all().to(torch::kDouble).reshape({1});
}

bool GradientSync::gradients_finite() const { return finite_flag().item<double>() > 0; }  // one read, on any device

void GradientSync::sum_buckets(std::span<float> flags) {
  const float scale = average_ ? 1.0f / static_cast<float>(comm_->size()) : 1.0f;
  std::size_t first = 0;
  while (first < parameters_.size()) {
    // Fill one bucket with whole parameters (a parameter larger than a bucket goes alone).
    std::size_t last = first, elements = 0;
    while (last < parameters_.size() &&
           (last == first || elements + static_cast<std::size_t>(parameters_[last].numel()) <= bucket_elements_))
      elements += static_cast<std::size_t>(parameters_[last++].numel());
    const bool last_bucket = last == parameters_.size();
    buffer_.resize(elements + (last_bucket ? flags.size() : 0));
    std::size_t pos = 0;
    for (std::size_t i = first; i < last; ++i) {
      auto& p = parameters_[i];
      const auto n = static_cast<std::size_t>(p.numel());
      if (p.grad().defined())
        std::memcpy(buffer_.data() + pos, nn::to_host(p.grad(), *comm_).contiguous().data_ptr<float>(),
                    n * sizeof(float));
      else
        std::fill_n(buffer_.data() + pos, n, 0.0f);
      pos += n;
    }
    if (last_bucket) std::copy(flags.begin(), flags.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(elements));
    comm_->allreduce_sum(buffer_, channel_);
    if (last_bucket) std::copy_n(buffer_.begin() + static_cast<std::ptrdiff_t>(elements), flags.size(), flags.begin());
    pos = 0;
    for (std::size_t i = first; i < last; ++i) {
      auto& p = parameters_[i];
      const auto n = static_cast<std::size_t>(p.numel());
      auto flat = nn::to_device(torch::from_blob(buffer_.data() + pos, p.sizes(), torch::kFloat32).mul(scale),
                                p.device(), *comm_);
      if (p.grad().defined())
        p.mutable_grad().copy_(flat);
      else
        p.mutable_grad() = flat;
      pos += n;
    }
    first = last;
  }
}

}  // namespace loom::nn
